// Package lambda runs the Task states that invoke AWS Lambda functions:
// the optimized integration arn:aws:states:::lambda:invoke (and its
// .waitForTaskToken variant), whose result wraps the function's output in
// Invoke's response metadata, and a bare function ARN as Resource, whose
// result is the function's output itself.
//
// A function runs in process when a handler is registered under its name,
// otherwise through the Lambda API client given to New (aws-sdk-go-v2's
// *lambda.Client; config.LoadDefaultConfig points it at
// AWS_ENDPOINT_URL_LAMBDA). A function error fails the task with the
// function's errorType as the error name and the error document as the
// cause, as Step Functions does.
package lambda

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/sfnapprovals/approvals/sfnlocal/integrations/internal/awstask"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// Integration runs Lambda Task states. Its methods are safe for concurrent
// use.
type Integration struct {
	client Invoker // nil: in-process handlers only

	mu       sync.RWMutex
	handlers map[string]Handler
}

var _ task.Integration = (*Integration)(nil)

// New returns an integration that invokes functions with client, or only
// registered in-process handlers when client is nil.
func New(client Invoker) *Integration {
	return &Integration{client: client, handlers: map[string]Handler{}}
}

// Register runs the function named functionName (a name, or a function ARN
// of which the name is used) in process with h, for every qualifier. It
// replaces an earlier handler for that name.
func (i *Integration) Register(functionName string, h Handler) {
	name, _ := splitFunctionName(functionName)
	i.mu.Lock()
	defer i.mu.Unlock()
	i.handlers[name] = h
}

func (i *Integration) handler(name string) (Handler, bool) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	h, ok := i.handlers[name]
	return h, ok
}

// Supports reports whether resource is lambda:invoke,
// lambda:invoke.waitForTaskToken or a Lambda function ARN.
func (i *Integration) Supports(resource string) bool {
	if r, ok := awstask.ParseResource(resource); ok {
		return r.Service == "lambda" && r.Action == "invoke" && (r.Pattern == "" || r.Pattern == awstask.WaitForTaskToken)
	}
	return isFunctionARN(resource)
}

// Invoke runs one attempt. A function error, an API error or a failed
// call is a *task.Failure; a done ctx returns ctx's error.
func (i *Integration) Invoke(ctx context.Context, call task.Call) (json.RawMessage, error) {
	if isFunctionARN(call.Resource) {
		in := request{FunctionName: call.Resource, Payload: payload(call.Parameters)}
		out, err := i.invoke(ctx, in)
		if err != nil {
			return nil, err
		}
		return out.functionResult()
	}
	if !i.Supports(call.Resource) {
		return nil, fmt.Errorf("lambda: resource %s is not a Lambda integration", call.Resource)
	}
	in, err := parseParameters(call.Parameters)
	if err != nil {
		return nil, err
	}
	out, err := i.invoke(ctx, in)
	if err != nil {
		return nil, err
	}
	return out.invokeResult()
}

// invoke runs the function in process if a handler is registered for its
// name, else through the client.
func (i *Integration) invoke(ctx context.Context, in request) (*response, error) {
	name, qualifier := splitFunctionName(in.FunctionName)
	if qualifier != "" && in.Qualifier != "" && qualifier != in.Qualifier {
		return nil, invalidParameter("The derived qualifier from the function name does not match the specified qualifier.")
	}
	if in.Qualifier == "" {
		in.Qualifier = qualifier
	}
	if h, ok := i.handler(name); ok {
		return runLocal(ctx, h, name, in)
	}
	if i.client == nil {
		return nil, notFound(name, in.Qualifier)
	}
	return i.invokeClient(ctx, in)
}

// isFunctionARN reports whether s is arn:<partition>:lambda:<region>:<account>:function:<name>[:<qualifier>].
func isFunctionARN(s string) bool {
	parts := strings.Split(s, ":")
	return (len(parts) == 7 || len(parts) == 8) && parts[0] == "arn" && parts[2] == "lambda" && parts[5] == "function" && parts[6] != ""
}
