// Package mock answers Task states from a Step Functions Local mock
// configuration file (MockConfigFile.json, named by SFN_MOCK_CONFIG), for
// executions started with a test case: StartExecution on
// "<stateMachineArn>#<TestCase>". The file maps state machine names to test
// cases, each test case maps state names to mocked responses, and a mocked
// response gives, per invocation of the state ("0", "1", or a range
// "1-2"), a Return (the state's result) or a Throw (Error and Cause).
//
// As in Step Functions Local, invocations are counted per state across the
// execution (retries, loops and Map iterations alike), a mocked state never
// calls the service, and an invocation the file gives no response for
// fails the execution (States.Runtime).
package mock

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// EnvConfig is the environment variable that names the mock configuration
// file, as for Step Functions Local.
const EnvConfig = "SFN_MOCK_CONFIG"

// Mock answers the Task states that test cases mock. Its methods are safe
// for concurrent use, and a nil *Mock mocks nothing.
type Mock struct {
	config *config

	mu          sync.Mutex
	invocations map[invocationKey]int // how many times each mocked state was invoked
}

type invocationKey struct{ execution, state string }

// Parse reads a mock configuration from the file's contents.
func Parse(data []byte) (*Mock, error) {
	c, err := parse(data)
	if err != nil {
		return nil, err
	}
	return &Mock{config: c, invocations: map[invocationKey]int{}}, nil
}

// Load reads the mock configuration file at path.
func Load(path string) (*Mock, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mock config: %w", err)
	}
	return Parse(data)
}

// FromEnv loads the file SFN_MOCK_CONFIG names, or returns nil (no mocks)
// when it is unset.
func FromEnv(getenv func(string) string) (*Mock, error) {
	path := getenv(EnvConfig)
	if path == "" {
		return nil, nil
	}
	return Load(path)
}

// HasTestCase reports whether the file defines testCase for the state
// machine (an ARN or a name), so that StartExecution can refuse an unknown
// one.
func (m *Mock) HasTestCase(stateMachine, testCase string) bool {
	if m == nil {
		return false
	}
	_, ok := m.config.testCases[machineName(stateMachine)][testCase]
	return ok
}

// Mocks reports whether call's test case mocks call's state. It is false
// without error when call has no test case; it is an error when the test
// case is one the file does not define.
func (m *Mock) Mocks(call task.Call) (bool, error) {
	if call.TestCase == "" {
		return false, nil
	}
	states, err := m.testCase(call)
	if err != nil {
		return false, err
	}
	_, ok := states[call.StateName]
	return ok, nil
}

// Invoke answers the state's next invocation: the Return as the result,
// or the Throw as a *task.Failure. An invocation the mocked response does
// not cover, or a state the test case does not mock, is a States.Runtime
// failure.
//
// For a .waitForTaskToken resource the Return is the integration's
// response and the engine still waits for the task token; Step Functions
// Local instead completes such a task at once.
func (m *Mock) Invoke(_ context.Context, call task.Call) (json.RawMessage, error) {
	states, err := m.testCase(call)
	if err != nil {
		return nil, &task.Failure{Name: "States.Runtime", Cause: err.Error()}
	}
	mocked, ok := states[call.StateName]
	if !ok {
		return nil, &task.Failure{Name: "States.Runtime", Cause: fmt.Sprintf("test case %q does not mock state %q", call.TestCase, call.StateName)}
	}
	n := m.next(call)
	a, ok := mocked.script.at(n)
	if !ok {
		return nil, &task.Failure{
			Name:  "States.Runtime",
			Cause: fmt.Sprintf("mocked response %q for state %q has no response for invocation %d (counting from 0)", mocked.name, call.StateName, n),
		}
	}
	if a.result == nil {
		return nil, &task.Failure{Name: a.err, Cause: a.cause}
	}
	return append(json.RawMessage(nil), a.result...), nil
}

// Forget drops the invocation counts of an execution that ended; the
// Router calls it when the engine reports the end.
func (m *Mock) Forget(executionARN string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.invocations {
		if k.execution == executionARN {
			delete(m.invocations, k)
		}
	}
}

// next counts an invocation of call's state and returns its number from 0.
func (m *Mock) next(call task.Call) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := invocationKey{call.ExecutionARN, call.StateName}
	n := m.invocations[k]
	m.invocations[k] = n + 1
	return n
}

// testCase returns the states call's test case mocks.
func (m *Mock) testCase(call task.Call) (map[string]mocked, error) {
	machine, testCase := splitTestCase(call)
	if m == nil {
		return nil, fmt.Errorf("the execution runs test case %q but no mock config is loaded (set %s)", testCase, EnvConfig)
	}
	cases, ok := m.config.testCases[machineName(machine)]
	if !ok {
		return nil, fmt.Errorf("the mock config has no state machine %q", machineName(machine))
	}
	states, ok := cases[testCase]
	if !ok {
		return nil, fmt.Errorf("the mock config has no test case %q for state machine %q", testCase, machineName(machine))
	}
	return states, nil
}

// splitTestCase reads the state machine and test case from call.TestCase,
// "<stateMachineArn>#<TestCase>" or just "<TestCase>".
func splitTestCase(call task.Call) (machine, testCase string) {
	if i := strings.LastIndexByte(call.TestCase, '#'); i >= 0 {
		return call.TestCase[:i], call.TestCase[i+1:]
	}
	return call.StateMachineARN, call.TestCase
}

// machineName is the name in a state machine ARN
// (arn:aws:states:region:account:stateMachine:name[:version]), or s itself.
func machineName(s string) string {
	parts := strings.Split(s, ":")
	if len(parts) >= 7 && parts[0] == "arn" && parts[5] == "stateMachine" {
		return parts[6]
	}
	return s
}
