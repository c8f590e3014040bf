package lambda

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

func TestClientInvoke(t *testing.T) {
	t.Parallel()
	client := newFakeLambdaAPI(t, map[string]Handler{
		"echo":  echo,
		"typed": func(context.Context, []byte) ([]byte, error) { return nil, &Rejected{Reason: "no"} },
	})
	fns := New(client)

	raw, err := fns.Invoke(context.Background(), invokeCall(`{"FunctionName":"arn:aws:lambda:us-east-1:123456789012:function:echo","Payload":{"a":[1]}}`))
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	got := decode(t, raw)
	payload, _ := got["Payload"].(map[string]any)
	if got["StatusCode"] != 200.0 || got["ExecutedVersion"] != "$LATEST" || payload == nil || payload["got"] == nil {
		t.Errorf("result %s: want StatusCode 200, ExecutedVersion $LATEST and the function's output as JSON", raw)
	}
	if id := got["SdkResponseMetadata"].(map[string]any)["RequestId"]; id != "fake-echo" {
		t.Errorf("RequestId = %v, want the service's x-amzn-RequestId fake-echo", id)
	}

	raw, err = fns.Invoke(context.Background(), invokeCall(`{"FunctionName":"echo","InvocationType":"Event"}`))
	if got := decode(t, raw); err != nil || got["StatusCode"] != 202.0 {
		t.Errorf("Event: %s, %v; want StatusCode 202", raw, err)
	}

	tests := []struct {
		function, wantName, wantCause string
	}{
		{"typed", "Rejected", `{"errorMessage":"rejected: no","errorType":"Rejected"}`},
		{"nobody", "Lambda.ResourceNotFoundException", "Function not found: arn:aws:lambda:us-east-1:123456789012:function:nobody (Service: AWSLambda; Status Code: 404; Error Code: ResourceNotFoundException; Request ID: fake-nobody; Proxy: null)"},
		{throttledFunction, "Lambda.TooManyRequestsException", "Rate Exceeded. (Service: AWSLambda; Status Code: 429; Error Code: TooManyRequestsException; Request ID: fake-throttled; Proxy: null)"},
		{teapotFunction, "Lambda.AWSLambdaException", "I'm a teapot (Service: AWSLambda; Status Code: 418; Error Code: TeapotError; Request ID: fake-teapot; Proxy: null)"},
	}
	for _, tt := range tests {
		_, err := fns.Invoke(context.Background(), invokeCall(`{"FunctionName":"`+tt.function+`"}`))
		if f := failure(t, err); f.Name != tt.wantName || f.Cause != tt.wantCause {
			t.Errorf("%s: failure = %q, %q; want %q, %q", tt.function, f.Name, f.Cause, tt.wantName, tt.wantCause)
		}
	}
}

func TestClientUnreachable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(nil)
	srv.Close() // nothing listens at its address any more
	fns := New(newClient(srv.URL))
	_, err := fns.Invoke(context.Background(), invokeCall(`{"FunctionName":"f"}`))
	if f := failure(t, err); f.Name != "Lambda.SdkClientException" || !strings.HasPrefix(f.Cause, "Unable to execute HTTP request") {
		t.Errorf("failure = %v, want Lambda.SdkClientException", f)
	}
}

func TestClientContextDone(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	fns := New(newFakeLambdaAPI(t, map[string]Handler{
		"slow": func(ctx context.Context, _ []byte) ([]byte, error) {
			select {
			case <-block:
			case <-ctx.Done():
			}
			return json.RawMessage(`{}`), nil
		},
	}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := fns.Invoke(ctx, invokeCall(`{"FunctionName":"slow"}`)); err != context.Canceled {
		t.Errorf("Invoke with a cancelled context = %v, want context.Canceled", err)
	}
}

// A function error's cause is the error document: for lambda:invoke
// re-serialised compactly, members in their order, as AWS recorded a
// Python function's error (test_task_service_lambda
// test_raise_exception_catch); for a bare function ARN exactly as the
// function returned it, spacing included (test_task_lambda
// test_raise_exception_catch, test_base_scenarios
// test_lambda_invoke_with_retry_base).
func TestFunctionErrorCause(t *testing.T) {
	t.Parallel()
	// The document a Python 3 function's unhandled exception posts, as
	// those recordings hold it (its requestId masked by LocalStack).
	const doc = `{"errorMessage": "Some exception was raised.", "errorType": "Exception", "requestId": "<uuid:1>", "stackTrace": ["  File \"/var/task/handler.py\", line 2, in handler\n    raise Exception(\"Some exception was raised.\")\n"]}`
	const compact = `{"errorMessage":"Some exception was raised.","errorType":"Exception","requestId":"<uuid:1>","stackTrace":["  File \"/var/task/handler.py\", line 2, in handler\n    raise Exception(\"Some exception was raised.\")\n"]}`
	client := newFakeLambdaAPI(t, map[string]Handler{
		"python": func(context.Context, []byte) ([]byte, error) {
			return nil, &FunctionError{Type: "Exception", Message: "Some exception was raised.", Document: []byte(doc)}
		},
		"notjson": func(context.Context, []byte) ([]byte, error) {
			return nil, &FunctionError{Type: "Exception", Document: []byte(`not { json`)}
		},
	})
	tests := []struct {
		name string
		call task.Call
		want string
	}{
		{"lambda:invoke", invokeCall(`{"FunctionName":"python"}`), compact},
		{"function ARN", task.Call{Resource: "arn:aws:lambda:us-east-1:123456789012:function:python", Parameters: json.RawMessage(`{}`)}, doc},
		{"lambda:invoke, a document that is not JSON", invokeCall(`{"FunctionName":"notjson"}`),
			"The cause could not be determined because Lambda did not return an error type. Returned payload: not { json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(client).Invoke(context.Background(), tt.call)
			f := failure(t, err)
			if f.Cause != tt.want {
				t.Errorf("cause\n got %s\nwant %s", f.Cause, tt.want)
			}
		})
	}
}
