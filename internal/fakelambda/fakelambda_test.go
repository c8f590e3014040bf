package fakelambda

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"
)

type Refused struct{}

func (*Refused) Error() string { return "refused" }

// The real aws-sdk-go-v2 client sees the answers Lambda gives.
func TestInvokeAPI(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := Start(map[string]Handler{
		"echo":   func(_ context.Context, p []byte) ([]byte, error) { return p, nil },
		"refuse": func(context.Context, []byte) ([]byte, error) { return nil, &Refused{} },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	client := awslambda.New(awslambda.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", ""), RetryMaxAttempts: 1})

	out, err := client.Invoke(ctx, &awslambda.InvokeInput{FunctionName: aws.String("arn:aws:lambda:us-east-1:123456789012:function:echo"), Payload: []byte(`{"a":1}`)})
	if err != nil || out.StatusCode != http.StatusOK || string(out.Payload) != `{"a":1}` || out.FunctionError != nil {
		t.Errorf("echo: %+v, %v", out, err)
	}
	out, err = client.Invoke(ctx, &awslambda.InvokeInput{FunctionName: aws.String("refuse")})
	if err != nil || aws.ToString(out.FunctionError) != "Unhandled" || string(out.Payload) != `{"errorMessage":"refused","errorType":"Refused"}` {
		t.Errorf("refuse: %+v %s, %v", out, out.Payload, err)
	}
	out, err = client.Invoke(ctx, &awslambda.InvokeInput{FunctionName: aws.String("echo"), InvocationType: types.InvocationTypeEvent, Payload: []byte(`{"e":1}`)})
	if err != nil || out.StatusCode != http.StatusAccepted {
		t.Errorf("Event: %+v, %v", out, err)
	}
	if got := <-s.Invocations(); got.Function != "echo" || string(got.Payload) != `{"a":1}` {
		t.Errorf("first invocation %+v", got)
	}
	<-s.Invocations() // refuse
	if got := <-s.Invocations(); got.InvocationType != "Event" || string(got.Payload) != `{"e":1}` {
		t.Errorf("Event invocation %+v", got)
	}

	var notFound *types.ResourceNotFoundException
	if _, err := client.Invoke(ctx, &awslambda.InvokeInput{FunctionName: aws.String("nobody")}); !errors.As(err, &notFound) {
		t.Errorf("unknown function: %v, want ResourceNotFoundException", err)
	}
	s.FailNext("echo", 1, http.StatusTooManyRequests, "TooManyRequestsException")
	var throttled *types.TooManyRequestsException
	if _, err := client.Invoke(ctx, &awslambda.InvokeInput{FunctionName: aws.String("echo")}); !errors.As(err, &throttled) {
		t.Errorf("FailNext: %v, want TooManyRequestsException", err)
	}
	if _, err := client.Invoke(ctx, &awslambda.InvokeInput{FunctionName: aws.String("echo")}); err != nil {
		t.Errorf("after the injected failure: %v", err)
	}
}

// Close cancels an Event invocation still running and waits for it.
func TestCloseWaitsForEventInvocations(t *testing.T) {
	t.Parallel()
	started, stopped := make(chan struct{}), make(chan struct{})
	s, err := Start(map[string]Handler{"slow": func(ctx context.Context, _ []byte) ([]byte, error) {
		close(started)
		<-ctx.Done()
		close(stopped)
		return nil, ctx.Err()
	}})
	if err != nil {
		t.Fatal(err)
	}
	client := awslambda.New(awslambda.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", ""), RetryMaxAttempts: 1})
	if _, err := client.Invoke(context.Background(), &awslambda.InvokeInput{FunctionName: aws.String("slow"), InvocationType: types.InvocationTypeEvent}); err != nil {
		t.Fatal(err)
	}
	<-started
	s.Close()
	select {
	case <-stopped:
	default:
		t.Error("Close returned while the function ran")
	}
}
