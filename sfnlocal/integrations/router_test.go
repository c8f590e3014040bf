package integrations_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/sfnlocal/integrations"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/mock"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

const mockConfig = `{
  "StateMachines": {"Approvals": {"TestCases": {"Mocked": {"Notify": "Sent", "Publish": "Published"}}}},
  "MockedResponses": {
    "Sent": {"0": {"Return": {"StatusCode": 200, "Payload": "mocked"}}},
    "Published": {"0": {"Return": {"MessageId": "m-1"}}}
  }
}`

const machineARN = "arn:aws:states:us-east-1:123456789012:stateMachine:Approvals"

func newRouter(t *testing.T, withMocks bool) *integrations.Router {
	t.Helper()
	fns := lambda.New(nil)
	fns.Register("notifier", func(context.Context, []byte) ([]byte, error) { return []byte(`"real"`), nil })
	if !withMocks {
		return integrations.NewRouter(nil, fns)
	}
	m, err := mock.Parse([]byte(mockConfig))
	if err != nil {
		t.Fatal(err)
	}
	return integrations.NewRouter(m, fns)
}

func call(resource, state, testCase string) task.Call {
	return task.Call{
		Resource:        resource,
		Parameters:      json.RawMessage(`{"FunctionName":"notifier"}`),
		StateMachineARN: machineARN,
		ExecutionARN:    "arn:aws:states:us-east-1:123456789012:execution:Approvals:e1",
		StateName:       state,
		TestCase:        testCase,
	}
}

func TestRouter(t *testing.T) {
	t.Parallel()
	const invoke = "arn:aws:states:::lambda:invoke"
	const publish = "arn:aws:states:::sns:publish"
	tests := []struct {
		name      string
		withMocks bool
		call      task.Call
		wantIn    string // a substring of the result, or of the failure's cause
		wantError string // the failure's name; empty for success
	}{
		{"mock first", true, call(invoke, "Notify", machineARN+"#Mocked"), `"Payload":"mocked"`, ""},
		{"state the test case does not mock", true, call(invoke, "Other", machineARN+"#Mocked"), `"Payload":"real"`, ""},
		{"no test case", true, call(invoke, "Notify", ""), `"Payload":"real"`, ""},
		{"a mock answers an unsupported resource", true, call(publish, "Publish", machineARN+"#Mocked"), `"MessageId":"m-1"`, ""},
		{"unsupported resource", true, call(publish, "Publish", ""), "The resource arn:aws:states:::sns:publish of state \"Publish\" is not supported by sfn-local", "States.Runtime"},
		{"unknown test case", true, call(invoke, "Notify", machineARN+"#Nope"), `no test case "Nope"`, "States.Runtime"},
		{"test case without a mock config", false, call(invoke, "Notify", machineARN+"#Mocked"), "no mock config (set SFN_MOCK_CONFIG)", "States.Runtime"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRouter(t, tt.withMocks)
			raw, err := r.Invoke(context.Background(), tt.call)
			if tt.wantError == "" {
				if err != nil || !strings.Contains(string(raw), tt.wantIn) {
					t.Errorf("Invoke = %s, %v; want a result with %s", raw, err, tt.wantIn)
				}
				return
			}
			f, ok := err.(*task.Failure)
			if !ok || f.Name != tt.wantError || !strings.Contains(f.Cause, tt.wantIn) {
				t.Errorf("Invoke = %s, %v; want %s with a cause containing %q", raw, err, tt.wantError, tt.wantIn)
			}
		})
	}
}

func TestRouterNilMockPointer(t *testing.T) {
	t.Parallel()
	var m *mock.Mock // what mock.FromEnv returns without SFN_MOCK_CONFIG
	r := integrations.NewRouter(m, lambda.New(nil))
	_, err := r.Invoke(context.Background(), call("arn:aws:states:::lambda:invoke", "Notify", machineARN+"#Mocked"))
	if f, ok := err.(*task.Failure); !ok || f.Name != "States.Runtime" {
		t.Errorf("Invoke = %v, want States.Runtime for a test case without a mock config", err)
	}
}

func TestRouterTestCases(t *testing.T) {
	t.Parallel()
	var nilMock *mock.Mock
	tests := []struct {
		name     string
		router   *integrations.Router
		testCase string
		want     bool
	}{
		{"defined", newRouter(t, true), "Mocked", true},
		{"undefined", newRouter(t, true), "Nope", false},
		{"no mock config", newRouter(t, false), "Mocked", false},
		{"nil mock pointer", integrations.NewRouter(nilMock), "Mocked", false},
	}
	for _, tt := range tests {
		if got := tt.router.HasTestCase(machineARN, tt.testCase); got != tt.want {
			t.Errorf("%s: HasTestCase(%q) = %v, want %v", tt.name, tt.testCase, got, tt.want)
		}
	}
}

func TestRouterExecutionEndedForgetsInvocations(t *testing.T) {
	t.Parallel()
	r := newRouter(t, true)
	c := call("arn:aws:states:::lambda:invoke", "Notify", machineARN+"#Mocked")
	invoke := func() error {
		_, err := r.Invoke(context.Background(), c)
		return err
	}
	if err := invoke(); err != nil {
		t.Fatalf("first invocation: %v", err)
	}
	if err := invoke(); err == nil {
		t.Fatal("second invocation succeeded; the mock answers only invocation 0")
	}
	r.ExecutionEnded(c.ExecutionARN)
	if err := invoke(); err != nil {
		t.Errorf("first invocation after ExecutionEnded: %v, want the response for 0", err)
	}
	integrations.NewRouter(nil).ExecutionEnded(c.ExecutionARN) // no mock config: nothing to forget
}
