package lambda

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// Rejected is a typed function error; aws-lambda-go names it "Rejected".
type Rejected struct{ Reason string }

func (e *Rejected) Error() string { return "rejected: " + e.Reason }

// coded names its errorType itself.
type coded struct{}

func (coded) Error() string     { return "coded failure" }
func (coded) ErrorType() string { return "Approvals.Coded" }

// echo returns the payload it got, with the request ID and ARN it saw.
func echo(ctx context.Context, payload []byte) ([]byte, error) {
	lc, ok := lambdacontext.FromContext(ctx)
	if !ok {
		lc = &lambdacontext.LambdaContext{}
	}
	return json.Marshal(map[string]any{"got": json.RawMessage(payload), "arn": lc.InvokedFunctionArn, "hasRequestId": lc.AwsRequestID != ""})
}

func TestInProcessInvoke(t *testing.T) {
	t.Parallel()
	fns := New(nil)
	fns.Register("echo", echo)
	ctx := context.Background()

	raw, err := fns.Invoke(ctx, invokeCall(`{"FunctionName":"echo","Payload":{"n":1.50}}`))
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	got := decode(t, raw)
	if got["StatusCode"] != 200.0 || got["ExecutedVersion"] != "$LATEST" {
		t.Errorf("StatusCode, ExecutedVersion = %v, %v; want 200, $LATEST", got["StatusCode"], got["ExecutedVersion"])
	}
	wantPayload := map[string]any{"got": map[string]any{"n": 1.5}, "arn": functionARN("echo", ""), "hasRequestId": true}
	if diff := cmp.Diff(wantPayload, got["Payload"]); diff != "" {
		t.Errorf("Payload (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(raw), `"n":1.50`) {
		t.Errorf("result %s: the number's text 1.50 was not kept", raw)
	}
	meta := got["SdkHttpMetadata"].(map[string]any)
	reqID := got["SdkResponseMetadata"].(map[string]any)["RequestId"]
	headers := meta["HttpHeaders"].(map[string]any)
	if meta["HttpStatusCode"] != 200.0 || reqID == "" || headers["x-amzn-RequestId"] != reqID || headers["X-Amz-Executed-Version"] != "$LATEST" {
		t.Errorf("SDK metadata %v, request ID %v: want status 200 and the request ID in the headers", meta, reqID)
	}
	if all := meta["AllHttpHeaders"].(map[string]any); fmt.Sprint(all["Content-Type"]) != "[application/json]" {
		t.Errorf("AllHttpHeaders = %v, want lists of values", all)
	}
}

func TestInProcessPayloadForms(t *testing.T) {
	t.Parallel()
	fns := New(nil)
	fns.Register("echo", echo)
	tests := []struct {
		name, params, want string
	}{
		{"missing", `{"FunctionName":"echo"}`, `{}`},
		{"null", `{"FunctionName":"echo","Payload":null}`, `{}`},
		{"string of JSON", `{"FunctionName":"echo","Payload":"{\"a\":1}"}`, `{"a":1}`},
		{"plain string", `{"FunctionName":"echo","Payload":"hi"}`, `"hi"`},
		{"array", `{"FunctionName":"echo","Payload":[1,2]}`, `[1,2]`},
		{"ARN with alias", `{"FunctionName":"arn:aws:lambda:eu-west-1:111122223333:function:echo:live","Payload":1}`, `1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := fns.Invoke(context.Background(), invokeCall(tt.params))
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			var r struct{ Payload struct{ Got json.RawMessage } }
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			if string(r.Payload.Got) != tt.want {
				t.Errorf("the function got %s, want %s", r.Payload.Got, tt.want)
			}
		})
	}
}

func TestInProcessFunctionErrors(t *testing.T) {
	t.Parallel()
	fns := New(nil)
	fns.Register("typed", func(context.Context, []byte) ([]byte, error) { return nil, &Rejected{Reason: "no"} })
	fns.Register("wrapped", func(context.Context, []byte) ([]byte, error) {
		return nil, fmt.Errorf("notify: %w", &Rejected{Reason: "no"})
	})
	fns.Register("coded", func(context.Context, []byte) ([]byte, error) { return nil, coded{} })
	fns.Register("explicit", func(context.Context, []byte) ([]byte, error) {
		return nil, &FunctionError{Type: "Sandbox.Timedout", Message: "timed out", Document: []byte(`{"errorMessage":"Task timed out after 3.00 seconds"}`)}
	})
	fns.Register("panics", func(context.Context, []byte) ([]byte, error) { panic(errors.New("kaboom")) })

	tests := []struct {
		function, wantName, wantCause string
	}{
		{"typed", "Rejected", `{"errorMessage":"rejected: no","errorType":"Rejected"}`},
		{"wrapped", "wrapError", `{"errorMessage":"notify: rejected: no","errorType":"wrapError"}`},
		{"coded", "Approvals.Coded", `{"errorMessage":"coded failure","errorType":"Approvals.Coded"}`},
		{"explicit", "Lambda.Unknown", `The cause could not be determined because Lambda did not return an error type. Returned payload: {"errorMessage":"Task timed out after 3.00 seconds"}`},
		{"panics", "errorString", `{"errorMessage":"kaboom","errorType":"errorString"}`},
	}
	for _, tt := range tests {
		t.Run(tt.function, func(t *testing.T) {
			for _, call := range []task.Call{
				invokeCall(`{"FunctionName":"` + tt.function + `"}`),
				{Resource: functionARN(tt.function, ""), Parameters: json.RawMessage(`{}`)},
			} {
				_, err := fns.Invoke(context.Background(), call)
				f := failure(t, err)
				if f.Name != tt.wantName || f.Cause != tt.wantCause {
					t.Errorf("%s: failure = %q, %q; want %q, %q", call.Resource, f.Name, f.Cause, tt.wantName, tt.wantCause)
				}
			}
		})
	}
}

func TestBareFunctionARN(t *testing.T) {
	t.Parallel()
	fns := New(nil)
	fns.Register("arn:aws:lambda:us-east-1:123456789012:function:double", func(_ context.Context, p []byte) ([]byte, error) {
		var n int
		if err := json.Unmarshal(p, &n); err != nil {
			return nil, err
		}
		return json.Marshal(map[string]int{"n": 2 * n})
	})
	call := task.Call{Resource: "arn:aws:lambda:us-east-1:123456789012:function:double:prod", Parameters: json.RawMessage(`21`)}
	if !fns.Supports(call.Resource) {
		t.Fatalf("Supports(%s) = false", call.Resource)
	}
	raw, err := fns.Invoke(context.Background(), call)
	if err != nil || string(raw) != `{"n":42}` {
		t.Errorf("Invoke = %s, %v; want the function's output {\"n\":42}", raw, err)
	}
}

func TestInProcessInvocationTypesAndErrors(t *testing.T) {
	t.Parallel()
	ran := make(chan struct{}, 1)
	fns := New(nil)
	fns.Register("f", func(context.Context, []byte) ([]byte, error) { ran <- struct{}{}; return []byte(`{"x":1}`), nil })

	raw, err := fns.Invoke(context.Background(), invokeCall(`{"FunctionName":"f","InvocationType":"Event"}`))
	if got := decode(t, raw); err != nil || got["StatusCode"] != 202.0 || got["Payload"] != "" || got["ExecutedVersion"] != nil {
		t.Errorf("Event: %s, %v; want StatusCode 202, an empty Payload and no ExecutedVersion", raw, err)
	}
	<-ran
	raw, err = fns.Invoke(context.Background(), invokeCall(`{"FunctionName":"f","InvocationType":"DryRun"}`))
	if got := decode(t, raw); err != nil || got["StatusCode"] != 204.0 || len(ran) != 0 {
		t.Errorf("DryRun: %s, %v; want StatusCode 204 without running the function", raw, err)
	}
	raw, err = fns.Invoke(context.Background(), invokeCall(`{"FunctionName":"f","Qualifier":"7"}`))
	if got := decode(t, raw); err != nil || got["ExecutedVersion"] != "7" {
		t.Errorf("Qualifier 7: %s, %v; want ExecutedVersion 7", raw, err)
	}
	<-ran

	for params, want := range map[string]string{
		`{"FunctionName":"missing"}`:                "Lambda.ResourceNotFoundException",
		`{"FunctionName":"f:live","Qualifier":"2"}`: "Lambda.InvalidParameterValueException",
		`{"Payload":{}}`:                            "Lambda.SdkClientException",
		`[]`:                                        "States.Runtime",
	} {
		_, err := fns.Invoke(context.Background(), invokeCall(params))
		if f := failure(t, err); f.Name != want {
			t.Errorf("Parameters %s: failure %v, want %s", params, f, want)
		}
	}
}

func TestSupports(t *testing.T) {
	t.Parallel()
	fns := New(nil)
	for resource, want := range map[string]bool{
		"arn:aws:states:::lambda:invoke":                           true,
		"arn:aws:states:::lambda:invoke.waitForTaskToken":          true,
		"arn:aws-cn:states:::lambda:invoke":                        true,
		"arn:aws:states:::lambda:invoke.sync":                      false,
		"arn:aws:lambda:us-east-1:123456789012:function:f":         true,
		"arn:aws:lambda:us-east-1:123456789012:function:f:$LATEST": true,
		"arn:aws:states:::sqs:sendMessage":                         false,
		"arn:aws:states:us-east-1:123456789012:activity:approve":   false,
		"arn:aws:lambda:us-east-1:123456789012:layer:l:1":          false,
	} {
		if got := fns.Supports(resource); got != want {
			t.Errorf("Supports(%s) = %v, want %v", resource, got, want)
		}
	}
}
