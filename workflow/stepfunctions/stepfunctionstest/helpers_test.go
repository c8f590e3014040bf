package stepfunctionstest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/smithy-go"

	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

const execARN = "arn:aws:states:us-east-1:123456789012:execution:Approvals:run-1"

func newServer(t *testing.T) (*stepfunctionstest.Server, *sfn.Client) {
	t.Helper()
	s := stepfunctionstest.NewServer()
	t.Cleanup(s.Close)
	return s, stepfunctionstest.NewClient(context.Background(), s.URL())
}

// errorCode is the AWS error code of err, or "" for nil.
func errorCode(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v is not an API error", err)
	}
	return apiErr.ErrorCode()
}
