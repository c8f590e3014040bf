package lambda

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// Function names the fake Lambda API answers with an API error.
const (
	throttledFunction = "throttled" // 429 TooManyRequestsException
	teapotFunction    = "teapot"    // 418 with an error code the SDK does not model
)

// newFakeLambdaAPI serves Lambda's Invoke API (REST JSON,
// POST /2015-03-31/functions/{name}/invocations) on 127.0.0.1 for fns, and
// returns a real aws-sdk-go-v2 client pointed at it.
func newFakeLambdaAPI(t *testing.T, fns map[string]Handler) *awslambda.Client {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /2015-03-31/functions/{name}/invocations", func(w http.ResponseWriter, r *http.Request) {
		name, _ := splitFunctionName(r.PathValue("name"))
		w.Header().Set("X-Amzn-RequestId", "fake-"+name)
		switch name {
		case throttledFunction:
			writeAPIError(w, http.StatusTooManyRequests, "TooManyRequestsException", "Rate Exceeded.")
			return
		case teapotFunction:
			writeAPIError(w, http.StatusTeapot, "TeapotError", "I'm a teapot")
			return
		}
		h, ok := fns[name]
		if !ok {
			writeAPIError(w, http.StatusNotFound, "ResourceNotFoundException", "Function not found: "+functionARN(name, ""))
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			writeAPIError(w, http.StatusBadRequest, "InvalidRequestContentException", err.Error())
			return
		}
		out, err := safeCall(r.Context(), h, body)
		if r.Header.Get("X-Amz-Invocation-Type") == "Event" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("X-Amz-Executed-Version", "$LATEST")
		if err != nil {
			w.Header().Set("X-Amz-Function-Error", "Unhandled")
			out = errorDocument(err)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return newClient(srv.URL)
}

func newClient(endpoint string) *awslambda.Client {
	return awslambda.New(awslambda.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(endpoint),
		Credentials:      credentials.NewStaticCredentialsProvider("AKIDLOCAL", "local", ""),
		RetryMaxAttempts: 1,
	})
}

func writeAPIError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("X-Amzn-ErrorType", code)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"Type": "User", "Message": msg})
}

// invokeCall is a lambda:invoke attempt with params as Parameters.
func invokeCall(params string) task.Call {
	return task.Call{Resource: "arn:aws:states:::lambda:invoke", Parameters: json.RawMessage(params), StateName: "Invoke"}
}

// decode parses a task result.
func decode(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	return m
}

// failure asserts err is a *task.Failure and returns it.
func failure(t *testing.T, err error) *task.Failure {
	t.Helper()
	f, ok := err.(*task.Failure)
	if !ok {
		t.Fatalf("error = %v (%T), want a *task.Failure", err, err)
	}
	return f
}
