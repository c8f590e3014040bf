package sfnlocal

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// Inspection levels and statuses of TestState.
const (
	InspectionInfo  = "INFO"
	InspectionDebug = "DEBUG"
	InspectionTrace = "TRACE"

	TestSucceeded   = "SUCCEEDED"
	TestFailed      = "FAILED"
	TestRetriable   = "RETRIABLE"
	TestCaughtError = "CAUGHT_ERROR"
)

// testStateName names the state of a definition that is one state, as
// AWS names it in the context object of a TestState run.
const testStateName = "StateName"

// testStateTimeout is how long a TestState run may take, as on AWS.
const testStateTimeout = 5 * time.Minute

// TestStateInput is TestState's request: Definition is one state, or a
// whole state machine with StateName naming the state to test. Input and
// Variables are JSON texts (defaults {} and none); InspectionLevel is
// INFO (default), DEBUG or TRACE. Mock answers the state instead of its
// integration or children; Context, only with a mock, is merged into the
// context object; StateConfiguration sets how many retries already
// happened.
type TestStateInput struct {
	Definition         string
	RoleArn            string
	Input              string
	InspectionLevel    string
	RevealSecrets      bool
	Variables          string
	StateName          string
	Mock               *TestStateMock
	Context            string
	StateConfiguration *TestStateConfiguration
}

// TestStateMock is a mocked result (a JSON text) or error of the state.
type TestStateMock struct {
	Result              *string
	ErrorOutput         *MockErrorOutput
	FieldValidationMode string
}

// MockErrorOutput is a mocked error.
type MockErrorOutput struct {
	Error string
	Cause string
}

// TestStateConfiguration describes the run the tested state is part of.
// RetrierRetryCount is how many retries of the retrier matching the error
// already happened. The other members are accepted and not used: the
// engine runs no Map iterations or Parallel branches under a mock.
type TestStateConfiguration struct {
	RetrierRetryCount        *int64
	ErrorCausedByState       string
	MapIterationFailureCount *int64
	MapItemReaderData        string
}

// TestStateOutput is TestState's response: Output is set unless the state
// failed or is retriable; NextState unless it ended the machine, failed
// or is retriable; InspectionData at the DEBUG and TRACE levels.
type TestStateOutput struct {
	Output         string
	HasOutput      bool
	Error          string
	Cause          string
	NextState      string
	Status         string
	InspectionData *InspectionData
}

// InspectionData is what a DEBUG or TRACE TestState shows of the state's
// data flow. The strings are JSON texts, empty when the step did not
// happen.
type InspectionData struct {
	Input               string
	AfterInputPath      string
	AfterParameters     string
	AfterArguments      string
	Result              string
	AfterResultSelector string
	AfterResultPath     string
	AfterItemsPath      string
	Variables           string

	MaxConcurrency             *int64
	ToleratedFailureCount      *int64
	ToleratedFailurePercentage *float64
	ErrorDetails               *InspectionErrorDetails
}

// InspectionErrorDetails says which Catch or Retry took the error.
type InspectionErrorDetails struct {
	CatchIndex                  *int
	RetryIndex                  *int
	RetryBackoffIntervalSeconds *int64
}

// TestState runs one state once with the given input and variables and
// reports its outcome, as the TestState operation does. It records no
// execution. Errors: ValidationException, InvalidDefinition, InvalidArn,
// InvalidExecutionInput, with AWS's wording where AWS's answer is known.
func (e *Engine) TestState(ctx context.Context, in TestStateInput) (TestStateOutput, error) {
	r, err := e.prepareTest(in)
	if err != nil {
		return TestStateOutput{}, err
	}
	return r.run(ctx)
}

// testRun is one TestState run: a transient Express execution whose root
// thread stops once the tested state is done.
type testRun struct {
	x        *execution
	in       TestStateInput
	level    string
	mock     *TestStateMock
	mockVal  any // the mocked result, decoded
	vars     map[string]any
	overlay  *jsonvalue.Object // the request's context, merged into the context object
	done     chan struct{}
	finished bool // guarded by x.mu
	// resultWriter is set when the tested Map state writes its results
	// (ResultWriter): its mocked result is then an object.
	resultWriter bool

	// set by the root thread while it runs the state; read after done.
	out       TestStateOutput
	insp      *InspectionData
	caughtBy  int // index of the Catch that took the error, or -1
	caughtErr *stateError
}

// prepareTest checks a TestState request and builds its run.
func (e *Engine) prepareTest(in TestStateInput) (*testRun, error) {
	if in.Definition == "" {
		return nil, apiErrorf(CodeValidationException, "1 validation error detected: Value at 'definition' failed to satisfy constraint: Member must not be null")
	}
	switch in.InspectionLevel {
	case "":
		in.InspectionLevel = InspectionInfo
	case InspectionInfo, InspectionDebug, InspectionTrace:
	default:
		return nil, apiErrorf(CodeValidationException, "1 validation error detected: Value '%s' at 'inspectionLevel' failed to satisfy constraint: Member must satisfy enum value set: [INFO, DEBUG, TRACE]", in.InspectionLevel)
	}
	if in.RoleArn != "" && !strings.HasPrefix(in.RoleArn, "arn:") {
		return nil, apiErrorf(CodeInvalidArn, "Invalid Arn: 'Resource type not valid in this context: %s'", in.RoleArn)
	}
	if in.Input == "" {
		in.Input = "{}"
	}
	input, err := decodeJSON([]byte(in.Input))
	if err != nil {
		return nil, apiErrorf(CodeInvalidExecutionInput, "Invalid State Machine Execution Input: '%v'", err)
	}
	r := &testRun{in: in, level: in.InspectionLevel, mock: in.Mock, done: make(chan struct{}), caughtBy: -1}
	if in.Variables != "" {
		v, err := decodeJSON([]byte(in.Variables))
		o, isObject := v.(*jsonvalue.Object)
		if err != nil || !isObject {
			return nil, apiErrorf(CodeValidationException, "Variables must be a JSON object")
		}
		r.vars = make(map[string]any, o.Len())
		o.Range(func(k string, v any) bool { r.vars[k] = v; return true })
	}
	if in.Context != "" {
		if in.Mock == nil {
			return nil, apiErrorf(CodeValidationException, "TestState does not support Context when no mock is specified.")
		}
		v, err := decodeJSON([]byte(in.Context))
		o, isObject := v.(*jsonvalue.Object)
		if err != nil || !isObject {
			return nil, apiErrorf(CodeValidationException, "Context must be a JSON object")
		}
		r.overlay = o
	}

	def, name, raw, err := testDefinition(in.Definition, in.StateName)
	if err != nil {
		return nil, err
	}
	st := def.states[name]
	_, r.resultWriter = raw["ResultWriter"]
	if err := r.checkMock(st); err != nil {
		return nil, err
	}
	if st.typ == "Task" && in.RoleArn == "" && in.Mock == nil {
		return nil, apiErrorf(CodeValidationException, "RoleArn must be specified when testing a Task state")
	}
	if st.typ == "Task" && in.Mock == nil && (strings.HasSuffix(st.resource, waitForTaskToken) || strings.HasSuffix(st.resource, ".sync") || strings.Contains(st.resource, ".sync:")) {
		return nil, apiErrorf(CodeValidationException, "TestState does not support the .waitForTaskToken or .sync integration patterns when no mock is specified.")
	}

	machineName := "TestState-" + newID()
	m := &machine{arn: e.machineArn(machineName), name: machineName, typ: Express, created: e.clock.Now(), def: def}
	execName := newID()
	x := &execution{e: e, m: m, def: &definition{startAt: name, states: def.states, timeoutSeconds: def.timeoutSeconds},
		arn:  fmt.Sprintf("arn:aws:states:%s:%s:express:%s:%s", e.region, e.acct, machineName, execName),
		name: execName, roleArn: in.RoleArn, input: input, inText: in.Input, start: e.clock.Now(), express: true,
		done: make(chan struct{}), status: StatusRunning, test: r}
	r.x = x
	if r.level != InspectionInfo {
		r.insp = &InspectionData{Input: jsonvalue.Encode(input)}
	}
	return r, nil
}

// checkMock checks the request's mock against the tested state, with
// AWS's answers (LocalStack's AWS-recorded test_state_mock_validation).
func (r *testRun) checkMock(st *state) error {
	m := r.mock
	if m == nil {
		if st.typ == "Map" || st.typ == "Parallel" {
			return apiErrorf(CodeInvalidDefinition, "TestState API does not support Map or Parallel states. Supported state types include: [Task, Wait, Pass, Succeed, Fail, Choice]")
		}
		return nil
	}
	if m.Result != nil && m.ErrorOutput != nil {
		return apiErrorf(CodeValidationException, "A test mock should have only one of the following fields: [result, errorOutput].")
	}
	switch st.typ {
	case "Task", "Map", "Parallel":
	default:
		return apiErrorf(CodeValidationException, "State type '%s' is not supported when a mock is specified", st.typ)
	}
	if r.in.RevealSecrets {
		return apiErrorf(CodeValidationException, "TestState does not support RevealSecrets when a mock is specified.")
	}
	switch m.FieldValidationMode {
	case "", "STRICT", "PRESENT", "NONE":
	default:
		return apiErrorf(CodeValidationException, "1 validation error detected: Value '%s' at 'mock.fieldValidationMode' failed to satisfy constraint: Member must satisfy enum value set: [STRICT, PRESENT, NONE]", m.FieldValidationMode)
	}
	if m.ErrorOutput != nil && m.ErrorOutput.Error == "" {
		return apiErrorf(CodeValidationException, "The error field is required when mock.errorOutput is specified.")
	}
	if m.Result == nil {
		return nil
	}
	v, err := decodeJSON([]byte(*m.Result))
	if err != nil {
		return apiErrorf(CodeValidationException, "Mocked result must be valid JSON")
	}
	r.mockVal = v
	_, isArray := v.([]any)
	_, isObject := v.(*jsonvalue.Object)
	switch {
	case st.typ == "Map" && r.resultWriter && !isObject:
		return apiErrorf(CodeValidationException, "Mocked result must be a JSON object.")
	case st.typ == "Map" && !r.resultWriter && !isArray:
		return apiErrorf(CodeValidationException, "Mocked result must be an array.")
	case st.typ == "Parallel" && !isArray:
		return apiErrorf(CodeValidationException, "Mocked result must be an array.")
	case st.typ == "Parallel" && len(v.([]any)) != len(st.branches):
		return apiErrorf(CodeValidationException, "Mocked result must contain the same number of items as number of Parallel branches.")
	}
	return nil
}

// testDefinition parses a TestState definition: one state (named
// StateName, as AWS names it) or, with stateName, a whole state machine.
// The states a single state moves to are stood in for by Succeed states,
// which never run: the run stops once the tested state is done.
func testDefinition(text, stateName string) (*definition, string, map[string]json.RawMessage, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &probe); err != nil {
		return nil, "", nil, apiErrorf(CodeInvalidDefinition, "Invalid State Machine Definition: 'INVALID_JSON_DESCRIPTION: %v'", err)
	}
	_, isMachine := probe["States"]
	if stateName != "" {
		if !isMachine {
			return nil, "", nil, apiErrorf(CodeInvalidDefinition, "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: A state machine definition with States is required when stateName is specified'")
		}
		def, err := compile(text, Standard)
		if err != nil {
			return nil, "", nil, err
		}
		if def.states[stateName] == nil {
			return nil, "", nil, apiErrorf(CodeValidationException, "State '%s' does not exist in the state machine definition.", stateName)
		}
		var states map[string]map[string]json.RawMessage
		_ = json.Unmarshal(probe["States"], &states)
		return def, stateName, states[stateName], nil
	}
	if isMachine {
		return nil, "", nil, apiErrorf(CodeInvalidDefinition, "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: The definition must be a single state when no stateName is specified'")
	}
	stateValue, err := decodeJSON([]byte(text))
	if err != nil {
		return nil, "", nil, apiErrorf(CodeInvalidDefinition, "Invalid State Machine Definition: 'INVALID_JSON_DESCRIPTION: %v'", err)
	}
	states := jsonvalue.NewObject(4)
	states.Set(testStateName, stateValue)
	for _, next := range nextNames(probe) {
		if _, taken := states.Get(next); !taken {
			states.Set(next, jsonvalue.ObjectOf("Type", "Succeed"))
		}
	}
	machine := jsonvalue.ObjectOf("StartAt", testStateName, "States", states)
	def, err := compile(jsonvalue.Encode(machine), Standard)
	if err != nil {
		return nil, "", nil, err
	}
	return def, testStateName, probe, nil
}

// nextNames lists the states a state's Next, Default, Choices and Catch
// name.
func nextNames(st map[string]json.RawMessage) []string {
	var names []string
	add := func(raw json.RawMessage) {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			names = append(names, s)
		}
	}
	add(st["Next"])
	add(st["Default"])
	for _, list := range []string{"Choices", "Catch"} {
		var items []map[string]json.RawMessage
		_ = json.Unmarshal(st[list], &items)
		for _, item := range items {
			add(item["Next"])
		}
	}
	return names
}
