package lambda

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/sfnapprovals/approvals/internal/lambdaruntime"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/internal/awstask"
)

// Handler runs a function in process: it gets the payload and returns the
// output. It has the shape of aws-lambda-go's Handler.Invoke, so
// lambda.NewHandler(fn).Invoke from aws-lambda-go registers a typed handler
// function as it is deployed. The context carries a
// lambdacontext.LambdaContext.
//
// A returned error is a function error whose errorType is, as
// aws-lambda-go reports it, the error's ErrorType() if it has that method,
// else the name of its Go type (so a wrapped error is "wrapError"). A panic
// is a function error too.
type Handler func(ctx context.Context, payload []byte) ([]byte, error)

// FunctionError is a function error with an explicit errorType, and
// optionally the exact error document to report as the cause.
type FunctionError struct {
	Type    string
	Message string
	// Document is the error document as the runtime posted it; when nil it
	// is {"errorMessage":Message,"errorType":Type}.
	Document []byte
}

func (e *FunctionError) Error() string     { return e.Message }
func (e *FunctionError) ErrorType() string { return e.Type }

// FromRuntime returns a handler that invokes the function running against
// the Runtime API emulator s (a real Lambda binary). Invocations are
// serialised by s. A function timeout is reported without an errorType, as
// Lambda does, so it fails the task as Lambda.Unknown.
func FromRuntime(s *lambdaruntime.Server) Handler {
	return func(ctx context.Context, payload []byte) ([]byte, error) {
		r, err := s.Invoke(ctx, payload)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			return nil, &FunctionError{Type: "Lambda.ServiceException", Message: err.Error()}
		case !r.Failed():
			return r.Payload, nil
		}
		doc := r.Payload
		if len(doc) == 0 {
			d := map[string]string{"errorMessage": r.ErrorMessage}
			if r.ErrorType != "Sandbox.Timedout" {
				d["errorType"] = r.ErrorType
			}
			doc, _ = json.Marshal(d)
		}
		return nil, &FunctionError{Type: r.ErrorType, Message: r.ErrorMessage, Document: doc}
	}
}

// runLocal invokes h as Lambda would invoke the function name. Event
// invocations run to completion before it returns, and their output is
// dropped; DryRun does not run h.
func runLocal(ctx context.Context, h Handler, name string, in request) (*response, error) {
	resp := &response{StatusCode: 200, RequestID: awstask.NewRequestID()}
	switch in.InvocationType {
	case "DryRun":
		resp.StatusCode = 204
		return resp, nil
	case "Event":
		resp.StatusCode = 202
	case "", "RequestResponse":
		resp.ExecutedVersion = executedVersion(in.Qualifier)
	default:
		return nil, invalidParameter(fmt.Sprintf("1 validation error detected: Value '%s' at 'invocationType' failed to satisfy constraint: Member must satisfy enum value set: [Event, RequestResponse, DryRun]", in.InvocationType))
	}
	lc := &lambdacontext.LambdaContext{AwsRequestID: resp.RequestID, InvokedFunctionArn: functionARN(name, in.Qualifier)}
	out, err := safeCall(lambdacontext.NewContext(ctx, lc), h, in.Payload)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	switch {
	case resp.StatusCode == 202:
	case err != nil:
		resp.FunctionError = "Unhandled"
		resp.Payload = errorDocument(err)
	default:
		resp.Payload = out
	}
	return resp, nil
}

// panicked is a handler's panic, reported like aws-lambda-go reports it.
type panicked struct{ value any }

func (p panicked) Error() string { return fmt.Sprint(p.value) }

func safeCall(ctx context.Context, h Handler, payload []byte) (out []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicked{value: v}
		}
	}()
	return h(ctx, payload)
}

// errorDocument is the error document aws-lambda-go posts for err.
func errorDocument(err error) []byte {
	if fe, ok := err.(*FunctionError); ok && fe.Document != nil {
		return fe.Document
	}
	doc := messages.InvokeResponse_Error{Message: err.Error(), Type: typeName(err)}
	switch e := err.(type) {
	case messages.InvokeResponse_Error:
		doc = e
	case panicked:
		doc.Type = typeName(e.value)
	case interface{ ErrorType() string }:
		doc.Type = e.ErrorType()
	}
	b, _ := json.Marshal(doc)
	return b
}

// typeName is the name of v's type, through one pointer.
func typeName(v any) string {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}
