package lambda

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
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

// A function error's cause is the error document exactly as the function
// returned it, spacing and member order included: AWS passes it on
// without re-serialising it.
func TestFunctionErrorCauseUntouched(t *testing.T) {
	t.Parallel()
	const doc = `{"errorType": "Oops",  "errorMessage": "m", "trace": [ 1, 2 ]}`
	client := newFakeLambdaAPI(t, map[string]Handler{
		"spaced": func(context.Context, []byte) ([]byte, error) {
			return nil, &FunctionError{Type: "Oops", Message: "m", Document: []byte(doc)}
		},
	})
	for _, call := range []string{`{"FunctionName":"spaced"}`} {
		_, err := New(client).Invoke(context.Background(), invokeCall(call))
		if f := failure(t, err); f.Name != "Oops" || f.Cause != doc {
			t.Errorf("failure = %q, %q; want Oops and the document as returned", f.Name, f.Cause)
		}
	}
}
