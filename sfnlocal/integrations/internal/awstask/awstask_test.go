package awstask

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/smithy-go"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

func TestParseResource(t *testing.T) {
	t.Parallel()
	tests := []struct {
		arn    string
		want   Resource
		wantOK bool
	}{
		{"arn:aws:states:::lambda:invoke", Resource{"lambda", "invoke", ""}, true},
		{"arn:aws:states:::sqs:sendMessage.waitForTaskToken", Resource{"sqs", "sendMessage", ".waitForTaskToken"}, true},
		{"arn:aws-us-gov:states:us-gov-west-1:123456789012:states:startExecution.sync:2", Resource{"states", "startExecution", ".sync:2"}, true},
		{"arn:aws:lambda:us-east-1:123456789012:function:f", Resource{}, false},
		{"arn:aws:states:::lambda", Resource{}, false},
		{"lambda:invoke", Resource{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseResource(tt.arn)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ParseResource(%s) = %+v, %v; want %+v, %v", tt.arn, got, ok, tt.want, tt.wantOK)
		}
	}
}

// Modeled is an API error type the SDK models.
type Modeled struct{ smithy.GenericAPIError }

func TestSDKFailure(t *testing.T) {
	t.Parallel()
	svc := Service{Prefix: "SQS", Name: "AmazonSQS", Generic: "AmazonSQSException"}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"modeled", &Modeled{smithy.GenericAPIError{Code: "Modeled", Message: "m"}}, "SQS.ModeledException"},
		{"generic", &smithy.GenericAPIError{Code: "AccessDenied", Message: "m"}, "SQS.AmazonSQSException"},
		{"no answer", errors.New("dial tcp: connection refused"), "SQS.SdkClientException"},
	}
	for _, tt := range tests {
		f, ok := SDKFailure(context.Background(), tt.err, svc).(*task.Failure)
		if !ok || f.Name != tt.want {
			t.Errorf("%s: SDKFailure = %v, want %s", tt.name, f, tt.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SDKFailure(ctx, errors.New("canceled"), svc); err != context.Canceled {
		t.Errorf("SDKFailure with a done context = %v, want context.Canceled", err)
	}
}
