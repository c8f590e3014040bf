package lambda

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/sfnapprovals/approvals/sfnlocal/integrations/internal/awstask"
)

// Invoker is the part of the Lambda API the integration calls; aws-sdk-go-v2's
// *lambda.Client satisfies it.
type Invoker interface {
	// Invoke invokes a function; a function error is a response with
	// FunctionError set, not an error.
	Invoke(ctx context.Context, params *awslambda.InvokeInput, optFns ...func(*awslambda.Options)) (*awslambda.InvokeOutput, error)
}

var lambdaService = awstask.Service{Prefix: "Lambda", Name: "AWSLambda", Generic: "AWSLambdaException"}

// invokeClient invokes the function through the Lambda API.
func (i *Integration) invokeClient(ctx context.Context, in request) (*response, error) {
	out, err := i.client.Invoke(ctx, &awslambda.InvokeInput{
		FunctionName:   aws.String(in.FunctionName),
		Payload:        in.Payload,
		InvocationType: types.InvocationType(in.InvocationType),
		Qualifier:      optional(in.Qualifier),
		ClientContext:  optional(in.ClientContext),
		LogType:        types.LogType(in.LogType),
	})
	if err != nil {
		return nil, awstask.SDKFailure(ctx, err, lambdaService)
	}
	requestID, _ := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata)
	if requestID == "" {
		requestID = awstask.NewRequestID()
	}
	return &response{
		StatusCode:      int(out.StatusCode),
		FunctionError:   aws.ToString(out.FunctionError),
		ExecutedVersion: aws.ToString(out.ExecutedVersion),
		Payload:         out.Payload,
		RequestID:       requestID,
	}, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
