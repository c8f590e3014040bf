package lambda

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	awslambdago "github.com/aws/aws-lambda-go/lambda"

	"github.com/sfnapprovals/approvals/internal/lambdaruntime"
)

// helperEnv makes the test binary run testFunction under aws-lambda-go.
const helperEnv = "SFNLOCAL_LAMBDA_TEST_FUNCTION"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		awslambdago.Start(testFunction) // never returns
	}
	os.Exit(m.Run())
}

func testFunction(_ context.Context, in struct{ Name string }) (map[string]string, error) {
	if in.Name == "" {
		return nil, &Rejected{Reason: "no name"}
	}
	return map[string]string{"greeting": "hello " + in.Name}, nil
}

// TestAWSLambdaGoFunction runs a real aws-lambda-go function (this test
// binary, re-executed) behind the Runtime API emulator, invoked through
// the fake Lambda API and the real aws-sdk-go-v2 client.
func TestAWSLambdaGoFunction(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	rt, err := lambdaruntime.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", "AWS_LAMBDA_RUNTIME_API="+rt.Addr())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	if err := rt.WaitNext(ctx); err != nil {
		t.Fatalf("WaitNext: %v", err)
	}

	fns := New(newFakeLambdaAPI(t, map[string]Handler{"greeter": FromRuntime(rt)}))
	raw, err := fns.Invoke(ctx, invokeCall(`{"FunctionName":"greeter","Payload":{"Name":"Ada"}}`))
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	if p := decode(t, raw)["Payload"].(map[string]any); p["greeting"] != "hello Ada" {
		t.Errorf("Payload = %v, want the function's greeting", p)
	}
	_, err = fns.Invoke(ctx, invokeCall(`{"FunctionName":"greeter","Payload":{}}`))
	if f := failure(t, err); f.Name != "Rejected" || f.Cause != `{"errorMessage":"rejected: no name","errorType":"Rejected"}` {
		t.Errorf("failure = %q, %q; want the function's Rejected error", f.Name, f.Cause)
	}
}

// TestRuntimeTimeout: a function that does not answer within its timeout
// fails the task as Lambda.Unknown, as Lambda reports no errorType.
func TestRuntimeTimeout(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	rt, err := lambdaruntime.StartWith(lambdaruntime.Options{Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })

	// A runtime that takes the invocation and never answers.
	polled := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+rt.Addr()+"/2018-06-01/runtime/invocation/next", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		polled <- err
	}()

	fns := New(nil)
	fns.Register("stuck", FromRuntime(rt))
	_, err = fns.Invoke(ctx, invokeCall(`{"FunctionName":"stuck"}`))
	if f := failure(t, err); f.Name != "Lambda.Unknown" {
		t.Errorf("failure = %v, want Lambda.Unknown", f)
	}
	if err := <-polled; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("poll: %v", err)
	}
}
