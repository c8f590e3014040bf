// Package sqs runs the Task states that send a message to Amazon SQS:
// arn:aws:states:::sqs:sendMessage and its .waitForTaskToken variant,
// through an SQS API client (aws-sdk-go-v2's *sqs.Client;
// config.LoadDefaultConfig points it at AWS_ENDPOINT_URL_SQS).
//
// As Step Functions does, it sends a MessageBody that is not a string as
// JSON text, answers with SQS's MD5OfMessageAttributes when the message
// has attributes, and fails the task with SQS.<Exception> when SQS
// refuses.
package sqs

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"

	"github.com/sfnapprovals/approvals/sfnlocal/integrations/internal/awstask"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// Sender is the part of the SQS API the integration calls; aws-sdk-go-v2's
// *sqs.Client satisfies it.
type Sender interface {
	SendMessage(ctx context.Context, params *awssqs.SendMessageInput, optFns ...func(*awssqs.Options)) (*awssqs.SendMessageOutput, error)
}

// Integration runs sqs:sendMessage Task states. It is safe for concurrent
// use.
type Integration struct {
	client Sender
}

var _ task.Integration = (*Integration)(nil)

// New returns an integration that sends messages with client.
func New(client Sender) *Integration { return &Integration{client: client} }

var sqsService = awstask.Service{Prefix: "SQS", Name: "AmazonSQS", Generic: "AmazonSQSException"}

// Supports reports whether resource is sqs:sendMessage or
// sqs:sendMessage.waitForTaskToken.
func (i *Integration) Supports(resource string) bool {
	r, ok := awstask.ParseResource(resource)
	return ok && r.Service == "sqs" && r.Action == "sendMessage" && (r.Pattern == "" || r.Pattern == awstask.WaitForTaskToken)
}

// Invoke sends one message. A refusal by SQS or a failed call is a
// *task.Failure; a done ctx returns ctx's error.
func (i *Integration) Invoke(ctx context.Context, call task.Call) (json.RawMessage, error) {
	if !i.Supports(call.Resource) {
		return nil, fmt.Errorf("sqs: resource %s is not an SQS integration", call.Resource)
	}
	in, err := parseParameters(call.Parameters)
	if err != nil {
		return nil, err
	}
	out, err := i.client.SendMessage(ctx, in, serviceValidates)
	if err != nil {
		return nil, awstask.SDKFailure(ctx, err, sqsService)
	}
	if out.MD5OfMessageAttributes == nil && len(in.MessageAttributes) > 0 {
		// SQS always answers with the digest of the attributes it
		// accepted; a local stand-in that leaves it out gets the one SQS
		// would have computed, so the result is the one AWS records.
		digest := attributesDigest(in.MessageAttributes)
		out.MD5OfMessageAttributes = &digest
	}
	return result(out)
}

// serviceValidates removes the SDK's own check of required parameters, so
// a request without MessageBody or QueueUrl reaches SQS and fails with
// SQS's answer (MissingParameter), as Step Functions records it, not with
// a client-side error AWS never shows.
func serviceValidates(o *awssqs.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		_, err := stack.Initialize.Remove("OperationInputValidation")
		return err
	})
}

// result is SendMessage's response with Step Functions' SDK metadata.
func result(out *awssqs.SendMessageOutput) (json.RawMessage, error) {
	fields := map[string]any{}
	set := func(name string, v *string) {
		if v != nil {
			fields[name] = *v
		}
	}
	set("MD5OfMessageAttributes", out.MD5OfMessageAttributes)
	set("MD5OfMessageBody", out.MD5OfMessageBody)
	set("MD5OfMessageSystemAttributes", out.MD5OfMessageSystemAttributes)
	set("MessageId", out.MessageId)
	set("SequenceNumber", out.SequenceNumber)
	body, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	requestID, _ := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata)
	if requestID == "" {
		requestID = awstask.NewRequestID()
	}
	result := awstask.Metadata(200, requestID, []awstask.Header{
		{Name: "x-amzn-RequestId", Value: requestID},
		{Name: "connection", Value: "keep-alive"},
		{Name: "Content-Length", Value: strconv.Itoa(len(body))},
		{Name: "Date", Value: awstask.Date()},
		{Name: "Content-Type", Value: "application/x-amz-json-1.0"},
	})
	for k, v := range fields {
		result[k] = v
	}
	return json.Marshal(result)
}
