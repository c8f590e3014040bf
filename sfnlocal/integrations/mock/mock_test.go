package mock

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

const machineARN = "arn:aws:states:us-east-1:123456789012:stateMachine:LambdaSQSIntegration"

// load reads testdata/MockConfigFile.json, the example of AWS's
// "Configuration file for mocked service integrations".
func load(t *testing.T) *Mock {
	t.Helper()
	m, err := Load(filepath.Join("testdata", "MockConfigFile.json"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return m
}

func call(execution, testCase, state string) task.Call {
	return task.Call{
		Resource:        "arn:aws:states:::lambda:invoke",
		StateMachineARN: machineARN,
		ExecutionARN:    "arn:aws:states:us-east-1:123456789012:execution:LambdaSQSIntegration:" + execution,
		StateName:       state,
		TestCase:        testCase,
	}
}

// outcome is one answer as text: the result, or "Error: Cause".
func outcome(raw json.RawMessage, err error) string {
	if err != nil {
		return err.Error()
	}
	return string(raw)
}

func TestInvocationsInOrder(t *testing.T) {
	t.Parallel()
	m := load(t)
	success := `{"StatusCode":200,"Payload":{"StatusCode":200,"body":"Hello from Lambda!"}}`
	want := []string{
		"Lambda.ResourceNotReadyException: Lambda resource is not ready.",
		"Lambda.TimeoutException: Lambda timed out.",
		"Lambda.TimeoutException: Lambda timed out.",
		success,
		`States.Runtime: mocked response "MockedLambdaRetry" for state "LambdaState" has no response for invocation 4 (counting from 0)`,
	}
	for n, w := range want {
		got := outcome(m.Invoke(context.Background(), call("e1", machineARN+"#RetryPath", "LambdaState")))
		if got != w {
			t.Errorf("invocation %d = %s, want %s", n, got, w)
		}
	}

	// Another execution counts from 0 again; so does this one once forgotten.
	if got := outcome(m.Invoke(context.Background(), call("e2", machineARN+"#RetryPath", "LambdaState"))); !strings.HasPrefix(got, "Lambda.ResourceNotReadyException") {
		t.Errorf("first invocation in another execution = %s, want the response for 0", got)
	}
	m.Forget(call("e1", "", "").ExecutionARN)
	if got := outcome(m.Invoke(context.Background(), call("e1", machineARN+"#RetryPath", "LambdaState"))); !strings.HasPrefix(got, "Lambda.ResourceNotReadyException") {
		t.Errorf("first invocation after Forget = %s, want the response for 0", got)
	}
}

func TestThrowIsATaskFailure(t *testing.T) {
	t.Parallel()
	m, err := Parse([]byte(`{"StateMachines":{"M":{"TestCases":{"Sad":{"Approve":"Rejected"}}}},
		"MockedResponses":{"Rejected":{"0-9":{"Throw":{"Error":"Rejected","Cause":"no"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	c := task.Call{StateMachineARN: "arn:aws:states:us-east-1:123456789012:stateMachine:M", StateName: "Approve", TestCase: "Sad", ExecutionARN: "x"}
	for range 10 {
		_, err := m.Invoke(context.Background(), c)
		if f, ok := err.(*task.Failure); !ok || *f != (task.Failure{Name: "Rejected", Cause: "no"}) {
			t.Fatalf("Invoke = %v, want task.Failure Rejected: no", err)
		}
	}
}

func TestMocks(t *testing.T) {
	t.Parallel()
	m := load(t)
	tests := []struct {
		name, testCase, state string
		want                  bool
		wantErr               string
	}{
		{"no test case", "", "LambdaState", false, ""},
		{"ARN#case", machineARN + "#HybridPath", "LambdaState", true, ""},
		{"case only", "HybridPath", "LambdaState", true, ""},
		{"state not mocked", "HybridPath", "SQSState", false, ""},
		{"unknown case", machineARN + "#SadPath", "LambdaState", false, `no test case "SadPath"`},
		{"unknown machine", "arn:aws:states:us-east-1:123456789012:stateMachine:Other#HappyPath", "LambdaState", false, `no state machine "Other"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.Mocks(call("e", tt.testCase, tt.state))
			if got != tt.want || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Mocks = %v, %v; want %v, %q", got, err, tt.want, tt.wantErr)
			}
		})
	}
	if !m.HasTestCase(machineARN, "HappyPath") || !m.HasTestCase("LambdaSQSIntegration", "RetryPath") || m.HasTestCase(machineARN, "SadPath") {
		t.Error("HasTestCase does not match the file")
	}

	var none *Mock
	if ok, err := none.Mocks(call("e", "HappyPath", "LambdaState")); ok || err == nil || !strings.Contains(err.Error(), EnvConfig) {
		t.Errorf("nil Mock: Mocks = %v, %v; want an error naming %s", ok, err, EnvConfig)
	}
	if ok, err := none.Mocks(call("e", "", "LambdaState")); ok || err != nil {
		t.Errorf("nil Mock without a test case: Mocks = %v, %v; want false, nil", ok, err)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	wrap := func(responses string) string {
		return `{"StateMachines":{"M":{"TestCases":{"T":{"S":"R"}}}},"MockedResponses":{"R":` + responses + `}}`
	}
	tests := []struct{ name, file, wantErr string }{
		{"not JSON", `{`, "unexpected end"},
		{"no MockedResponses", `{"StateMachines":{}}`, "both required"},
		{"unknown response", `{"StateMachines":{"M":{"TestCases":{"T":{"S":"Nope"}}}},"MockedResponses":{}}`, `no mocked response "Nope"`},
		{"both", wrap(`{"0":{"Return":1,"Throw":{"Error":"E","Cause":"C"}}}`), "both Return and Throw"},
		{"neither", wrap(`{"0":{}}`), "neither Return nor Throw"},
		{"Throw without Cause", wrap(`{"0":{"Throw":{"Error":"E"}}}`), "Error and Cause"},
		{"gap", wrap(`{"0":{"Return":1},"2":{"Return":2}}`), "invocation 1 has no response"},
		{"not from 0", wrap(`{"1":{"Return":1}}`), "invocation 0 has no response"},
		{"overlap", wrap(`{"0-2":{"Return":1},"2":{"Return":2}}`), "invocation 2 has two responses"},
		{"bad key", wrap(`{"first":{"Return":1}}`), `"first" is neither`},
		{"reversed range", wrap(`{"2-1":{"Return":1}}`), `"2-1" is neither`},
		{"empty", wrap(`{}`), "no responses"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestFromEnv(t *testing.T) {
	t.Parallel()
	m, err := FromEnv(func(string) string { return "" })
	if m != nil || err != nil {
		t.Errorf("FromEnv without %s = %v, %v; want nil, nil", EnvConfig, m, err)
	}
	path := filepath.Join("testdata", "MockConfigFile.json")
	m, err = FromEnv(func(k string) string { return map[string]string{EnvConfig: path}[k] })
	if m == nil || err != nil {
		t.Errorf("FromEnv(%s) = %v, %v; want the file's mocks", path, m, err)
	}
	if _, err := FromEnv(func(string) string { return filepath.Join(t.TempDir(), "missing.json") }); err == nil {
		t.Error("FromEnv with a missing file: want an error")
	}
}
