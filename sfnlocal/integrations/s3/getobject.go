package s3

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/sfnapprovals/approvals/sfnlocal/integrations/internal/awstask"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// maxBodyBytes bounds the Body a getObject Task returns: Step Functions'
// payload limit, which the result could not pass anyway.
const maxBodyBytes = 256 * 1024

// getObjectResult is what arn:aws:states:::aws-sdk:s3:getObject returns:
// GetObject's response fields, the Body as text.
type getObjectResult struct {
	AcceptRanges  string            `json:"AcceptRanges,omitempty"`
	Body          string            `json:"Body"`
	ContentLength int64             `json:"ContentLength"`
	ContentType   string            `json:"ContentType,omitempty"`
	ETag          string            `json:"ETag,omitempty"`
	LastModified  string            `json:"LastModified,omitempty"`
	Metadata      map[string]string `json:"Metadata"`
}

// Invoke runs aws-sdk:s3:getObject with {"Bucket", "Key"[, "VersionId"]}.
// S3's refusal fails the task with S3.<Exception> (S3.NoSuchKeyException);
// a body that is not UTF-8 text or is larger than 256 KiB fails it with
// States.Runtime.
func (i *Integration) Invoke(ctx context.Context, call task.Call) (json.RawMessage, error) {
	if !i.Supports(call.Resource) {
		return nil, fmt.Errorf("s3: resource %s is not aws-sdk:s3:getObject", call.Resource)
	}
	ref, err := parseRef(call.Parameters, "States.Runtime", "getObject Task", true)
	if err != nil {
		return nil, err
	}
	in := &awss3.GetObjectInput{Bucket: aws.String(ref.Bucket), Key: aws.String(ref.Key)}
	if ref.VersionId != "" {
		in.VersionId = aws.String(ref.VersionId)
	}
	out, err := i.client.GetObject(ctx, in)
	if err != nil {
		return nil, awstask.SDKFailure(ctx, err, s3Service)
	}
	defer out.Body.Close()
	body, err := io.ReadAll(io.LimitReader(out.Body, maxBodyBytes+1))
	if err != nil {
		return nil, awstask.SDKFailure(ctx, err, s3Service)
	}
	switch {
	case len(body) > maxBodyBytes:
		return nil, &task.Failure{Name: "States.Runtime", Cause: fmt.Sprintf("%s is larger than a state's payload may be (256 KiB).", s3URI(ref.Bucket, ref.Key))}
	case !utf8.Valid(body):
		return nil, &task.Failure{Name: "States.Runtime", Cause: fmt.Sprintf("%s is not text (UTF-8), so its Body cannot be returned.", s3URI(ref.Bucket, ref.Key))}
	}
	res := getObjectResult{
		AcceptRanges:  aws.ToString(out.AcceptRanges),
		Body:          string(body),
		ContentLength: aws.ToInt64(out.ContentLength),
		ContentType:   aws.ToString(out.ContentType),
		ETag:          aws.ToString(out.ETag),
		Metadata:      out.Metadata,
	}
	if out.LastModified != nil {
		res.LastModified = out.LastModified.UTC().Format(time.RFC3339)
	}
	if res.Metadata == nil {
		res.Metadata = map[string]string{}
	}
	return json.Marshal(res)
}
