package stepfunctionstest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
)

// NewClient returns a real aws-sdk-go-v2 Step Functions client for the
// server at url: region us-east-1, static dummy credentials, and the
// standard retryer (3 attempts) with a 1 ms backoff and no retry quota, so
// tests that exhaust retries stay fast. It reads no environment or shared
// config; ctx is not used today.
func NewClient(ctx context.Context, url string) *sfn.Client {
	return sfn.New(sfn.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(url),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDSTEPFUNCTIONSTEST", "stepfunctionstest-secret", ""),
		HTTPClient:   ownBodies{next: awshttp.NewBuildableClient()},
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return time.Millisecond, nil })
			o.RateLimiter = ratelimit.None
		}),
	})
}

// ownBodies hands the transport its own copy of each request body. The
// SDK closes its body as soon as the response arrives; against a server on
// the same host that can happen while net/http still reads the body's end,
// which breaks the connection and makes the SDK retry now and then
// (aws/aws-sdk-go-v2#2737). With a copy, tests see exactly the calls they
// make, and the retries they inject.
type ownBodies struct{ next sfn.HTTPClient }

func (c ownBodies) Do(r *http.Request) (*http.Response, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return c.next.Do(r)
	}
	body, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	if err != nil {
		return nil, err
	}
	own := r.Clone(r.Context())
	own.Body = io.NopCloser(bytes.NewReader(body))
	own.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	own.ContentLength = int64(len(body))
	return c.next.Do(own)
}
