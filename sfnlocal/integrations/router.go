// Package integrations runs the local engine's Task states: a Router sends
// each attempt to the mock configuration when the execution's test case
// mocks the state, else to the first integration that supports the
// resource (subpackages lambda, sqs, ecs and s3), and fails the attempt with
// States.Runtime, naming the resource, when none does.
//
// cmd/sfn-local wires it from the environment:
//
//	cfg, _ := config.LoadDefaultConfig(ctx) // AWS_ENDPOINT_URL_LAMBDA, _SQS, _S3
//	mocks, err := mock.FromEnv(os.Getenv) // SFN_MOCK_CONFIG; nil when unset
//	fns := lambda.New(awslambda.NewFromConfig(cfg))
//	fns.Register("notifier", awslambdago.NewHandler(notifier.Handle).Invoke) // optional, in process
//	tasks := ecs.New(ecs.Options{}) // ECS stand-ins: tasks.Register(ecs.TaskDefinition{…})
//	router := integrations.NewRouter(mocks, fns, sqs.New(awssqs.NewFromConfig(cfg)), tasks,
//		s3.New(awss3.NewFromConfig(cfg, func(o *awss3.Options) { o.UsePathStyle = true })))
//
// The router also reads a distributed Map's items and writes its results
// (task.ItemReader, task.ResultWriter) with the first integration that
// does: the s3 one.
package integrations

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// Mocker answers the Task states an execution's test case mocks
// (*mock.Mock).
type Mocker interface {
	// Mocks reports whether call's test case mocks call's state; it is an
	// error for a test case the mock configuration does not define.
	Mocks(call task.Call) (bool, error)
	// Invoke answers one attempt of a mocked state.
	Invoke(ctx context.Context, call task.Call) (json.RawMessage, error)
	// HasTestCase reports whether the mock configuration defines testCase
	// for the state machine.
	HasTestCase(stateMachine, testCase string) bool
	// Forget drops what the mock counted for an execution that ended.
	Forget(executionARN string)
}

// Router runs every Task state: mocked ones from its Mocker, others with
// the first integration that supports the resource. It is safe for
// concurrent use if its integrations are.
type Router struct {
	mock         Mocker
	integrations []task.Integration
}

var (
	_ task.Integration       = (*Router)(nil)
	_ task.TestCaseChecker   = (*Router)(nil)
	_ task.ExecutionObserver = (*Router)(nil)
)

// NewRouter returns a router that asks mock first (nil: no mocks), then
// integrations in order.
func NewRouter(mock Mocker, integrations ...task.Integration) *Router {
	return &Router{mock: mock, integrations: integrations}
}

// Supports reports true: the router answers every resource, failing the
// ones nothing runs with States.Runtime (a mock may answer any resource).
func (r *Router) Supports(string) bool { return true }

// Invoke runs one attempt. It fails with States.Runtime when the
// execution's test case is unknown, or when neither a mock nor an
// integration runs the resource.
func (r *Router) Invoke(ctx context.Context, call task.Call) (json.RawMessage, error) {
	if call.TestCase != "" {
		if r.mock == nil {
			return nil, &task.Failure{Name: "States.Runtime", Cause: fmt.Sprintf("the execution runs test case %q but sfn-local has no mock config (set SFN_MOCK_CONFIG)", call.TestCase)}
		}
		mocked, err := r.mock.Mocks(call)
		if err != nil {
			return nil, &task.Failure{Name: "States.Runtime", Cause: err.Error()}
		}
		if mocked {
			return r.mock.Invoke(ctx, call)
		}
	}
	for _, in := range r.integrations {
		if in.Supports(call.Resource) {
			return in.Invoke(ctx, call)
		}
	}
	return nil, &task.Failure{
		Name:  "States.Runtime",
		Cause: fmt.Sprintf("The resource %s of state %q is not supported by sfn-local: it runs lambda:invoke, Lambda function ARNs, sqs:sendMessage (with .waitForTaskToken), ecs:runTask (with .sync and .waitForTaskToken, on registered stand-ins) and aws-sdk:s3:getObject; mock other resources in a test case (SFN_MOCK_CONFIG)", call.Resource, call.StateName),
	}
}

// HasTestCase reports whether the mock configuration defines testCase for
// the state machine; without a mock configuration it defines none.
func (r *Router) HasTestCase(stateMachineARN, testCase string) bool {
	return r.mock != nil && r.mock.HasTestCase(stateMachineARN, testCase)
}

// ExecutionEnded lets the mock forget the execution's invocation counts.
func (r *Router) ExecutionEnded(executionARN string) {
	if r.mock != nil {
		r.mock.Forget(executionARN)
	}
}
