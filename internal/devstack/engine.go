package devstack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/eventrule"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/sfnlocal/sfnapi"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// NotifierFunction is the Lambda function name under which the stack's
// engine runs the notifier (the shipped definitions use it).
const NotifierFunction = "approvals-notifier"

// EventsFunction is the Lambda function name under which the stack's
// engine runs the events handler, the target of its status change rule.
const EventsFunction = "approvals-events"

// EndedStatuses are the statuses the stack's rule delivers to
// EventsFunction, as deploy/cloudformation.yaml's rule matches them.
var EndedStatuses = []string{"SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED"}

// engine is the local Step Functions engine behind its API, the way
// cmd/sfn-local serves it.
type engine struct {
	*sfnlocal.Engine
	server *http.Server
	url    string
}

// engineParts are what the stack's engine runs: the notifier, the events
// handler, the state machines' other functions, and its clock (nil: real
// time).
type engineParts struct {
	notifier, events lambda.Handler
	functions        map[string]lambda.Handler
	others           []task.Integration
	clock            sfnlocal.Clock
	// sink sees every status change event before the rule matches it.
	sink func(event []byte)
}

// startEngine serves a new engine on a loopback port. The notifier is its
// Lambda function NotifierFunction and the events handler EventsFunction,
// which an EventBridge-like rule (eventrule) invokes with the status
// change events of ended executions.
func startEngine(p engineParts, logger *zap.Logger) (*engine, error) {
	fns := lambda.New(nil)
	fns.Register(NotifierFunction, p.notifier)
	fns.Register(EventsFunction, p.events)
	for name, h := range p.functions { // may replace EventsFunction
		fns.Register(name, h)
	}
	rule, err := eventrule.New(eventrule.Config{Function: EventsFunction, Statuses: EndedStatuses, Lambda: fns, Logger: logger})
	if err != nil {
		return nil, err
	}
	e := &engine{Engine: sfnlocal.New(sfnlocal.Options{
		Clock:        p.clock,
		Integrations: []task.Integration{integrations.NewRouter(nil, append([]task.Integration{fns}, p.others...)...)},
		Logger:       logger,
		Events: func(ctx context.Context, event []byte) {
			p.sink(event)
			rule.Deliver(ctx, event)
		},
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.Engine.Close()
		return nil, fmt.Errorf("listen for the Step Functions API: %w", err)
	}
	e.url = "http://" + ln.Addr().String()
	e.server = &http.Server{Handler: sfnapi.NewHandler(e.Engine, sfnapi.WithLogger(logger)), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := e.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("step functions API stopped", zap.Error(err))
		}
	}()
	return e, nil
}

func (e *engine) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = e.server.Shutdown(ctx)
	e.Engine.Close()
}

// CreateStateMachine creates (or finds, if identical) a Standard state
// machine on the stack's engine through the Step Functions API and
// returns its ARN.
func (s *Stack) CreateStateMachine(ctx context.Context, name string, definition []byte) (string, error) {
	if s.engine == nil {
		return "", errors.New("devstack: the stack runs the callback double; start it with Options.Engine")
	}
	out, err := s.sfn.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{
		Name:       aws.String(name),
		Definition: aws.String(string(definition)),
		RoleArn:    aws.String("arn:aws:iam::123456789012:role/devstack"),
	})
	if err != nil {
		return "", fmt.Errorf("create state machine %s: %w", name, err)
	}
	return aws.ToString(out.StateMachineArn), nil
}

// StartExecution starts an execution through the Step Functions API.
func (s *Stack) StartExecution(ctx context.Context, stateMachineARN, name string, input any) (string, error) {
	raw, err := json.Marshal(input)
	if err != nil {
		return "", fmt.Errorf("encode input: %w", err)
	}
	out, err := s.sfn.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(stateMachineARN),
		Name:            aws.String(name),
		Input:           aws.String(string(raw)),
	})
	if err != nil {
		return "", fmt.Errorf("start execution %s: %w", name, err)
	}
	return aws.ToString(out.ExecutionArn), nil
}

// StopExecution stops an execution through the Step Functions API, with
// an error name and cause (either may be empty).
func (s *Stack) StopExecution(ctx context.Context, executionARN, errorName, cause string) error {
	if s.engine == nil {
		return errors.New("devstack: the stack runs the callback double; start it with Options.Engine")
	}
	in := &sfn.StopExecutionInput{ExecutionArn: aws.String(executionARN)}
	if errorName != "" {
		in.Error = aws.String(errorName)
	}
	if cause != "" {
		in.Cause = aws.String(cause)
	}
	if _, err := s.sfn.StopExecution(ctx, in); err != nil {
		return fmt.Errorf("stop execution %s: %w", executionARN, err)
	}
	return nil
}

// WaitExecution waits until the execution ends and returns it.
func (s *Stack) WaitExecution(ctx context.Context, executionARN string) (sfnlocal.Execution, error) {
	if s.engine == nil {
		return sfnlocal.Execution{}, errors.New("devstack: the stack runs the callback double; start it with Options.Engine")
	}
	return s.engine.WaitExecution(ctx, executionARN)
}

// History returns the execution's events through the Step Functions API.
func (s *Stack) History(ctx context.Context, executionARN string) ([]sfnlocal.HistoryEvent, error) {
	if s.engine == nil {
		return nil, errors.New("devstack: the stack runs the callback double; start it with Options.Engine")
	}
	var events []sfnlocal.HistoryEvent
	var next string
	for {
		out, err := s.engine.GetExecutionHistory(ctx, sfnlocal.GetExecutionHistoryInput{ExecutionArn: executionARN, NextToken: next})
		if err != nil {
			return nil, err
		}
		events = append(events, out.Events...)
		if next = out.NextToken; next == "" {
			return events, nil
		}
	}
}
