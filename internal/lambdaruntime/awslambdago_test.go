package lambdaruntime

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
)

// helperEnv makes the test binary run testFunction under aws-lambda-go.
const helperEnv = "LAMBDARUNTIME_TEST_FUNCTION"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		lambda.Start(testFunction) // never returns
	}
	os.Exit(m.Run())
}

// BadInput is a typed function error; aws-lambda-go names it "BadInput".
type BadInput struct{ Reason string }

func (e *BadInput) Error() string { return "bad input: " + e.Reason }

func testFunction(ctx context.Context, in struct{ Fail, Panic bool }) (map[string]any, error) {
	lc, _ := lambdacontext.FromContext(ctx)
	_, hasDeadline := ctx.Deadline()
	switch {
	case in.Fail:
		return nil, &BadInput{Reason: "fail was set"}
	case in.Panic:
		panic(errors.New("kaboom"))
	}
	return map[string]any{"requestId": lc.AwsRequestID, "arn": lc.InvokedFunctionArn, "deadline": hasDeadline}, nil
}

// TestAWSLambdaGoRuntime runs a real aws-lambda-go function (this test
// binary, re-executed) against the emulator.
func TestAWSLambdaGoRuntime(t *testing.T) {
	t.Parallel()
	s := start(t, Options{})
	ctx := testContext(t)

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", "AWS_LAMBDA_RUNTIME_API="+s.Addr())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	if err := s.WaitNext(ctx); err != nil {
		t.Fatalf("WaitNext: %v", err)
	}

	r, err := s.Invoke(ctx, []byte(`{}`))
	if err != nil || r.Failed() {
		t.Fatalf("Invoke = %+v, %v", r, err)
	}
	var got map[string]any
	if err := json.Unmarshal(r.Payload, &got); err != nil {
		t.Fatalf("response %s: %v", r.Payload, err)
	}
	if got["requestId"] == "" || got["arn"] != DefaultFunctionARN || got["deadline"] != true {
		t.Errorf("the function saw context %v, want a request ID, the function ARN and a deadline", got)
	}

	r, err = s.Invoke(ctx, []byte(`{"Fail":true}`))
	if err != nil || r.ErrorType != "BadInput" || r.ErrorMessage != "bad input: fail was set" {
		t.Errorf("Invoke(fail) = %+v, %v; want errorType BadInput", r, err)
	}

	// A panic is reported, then aws-lambda-go exits the process.
	r, err = s.Invoke(ctx, []byte(`{"Panic":true}`))
	if err != nil || r.ErrorType != "errorString" || r.ErrorMessage != "kaboom" {
		t.Errorf("Invoke(panic) = %+v, %v; want errorType errorString", r, err)
	}
	select {
	case <-exited:
		exited <- nil // for the cleanup
	case <-ctx.Done():
		t.Error("the function did not exit after a panic")
	}
}
