package awstask

import (
	"context"
	"errors"
	"reflect"
	"strings"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// Service names a service the way Step Functions names its errors.
type Service struct {
	Prefix  string // error name prefix: "Lambda"
	Name    string // the AWS SDK for Java's service name: "AWSLambda"
	Generic string // the exception for an error the SDK does not model: "AWSLambdaException"
}

// SDKFailure turns an error from an aws-sdk-go-v2 call into the task
// failure Step Functions records, which names the AWS SDK for Java's
// exception class: "<Prefix>.<Exception>" for an API error the SDK models
// (QueueDoesNotExist becomes SQS.QueueDoesNotExistException),
// "<Prefix>.<Generic>" for one it does not, and "<Prefix>.SdkClientException"
// when the call got no answer. A done ctx's error is returned as is.
func SDKFailure(ctx context.Context, err error, svc Service) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		return &task.Failure{Name: svc.Prefix + ".SdkClientException", Cause: "Unable to execute HTTP request: " + err.Error()}
	}
	exception := svc.Generic
	if _, generic := apiErr.(*smithy.GenericAPIError); !generic {
		t := reflect.TypeOf(apiErr)
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		exception = t.Name()
		if !strings.HasSuffix(exception, "Exception") {
			exception += "Exception"
		}
	}
	status, requestID := 0, ""
	var respErr *awshttp.ResponseError
	if errors.As(err, &respErr) {
		status, requestID = respErr.HTTPStatusCode(), respErr.ServiceRequestID()
	}
	return &task.Failure{
		Name:  svc.Prefix + "." + exception,
		Cause: ServiceErrorCause(apiErr.ErrorMessage(), svc.Name, status, apiErr.ErrorCode(), requestID),
	}
}
