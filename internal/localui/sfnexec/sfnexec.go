// Package sfnexec gives the stand-in's executions panel (localui.Executions) the Step Functions
// API: any endpoint the aws-sdk-go-v2 sfn client reaches, such as the local engine. Shipped
// workflows are offered their sample inputs (definitions.Sample), other state machines "{}".
// Task tokens in history events and execution data are masked.
package sfnexec

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/aws/smithy-go"

	"github.com/sfnapprovals/approvals/internal/localui"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// API is the part of the Step Functions API the panel calls; *sfn.Client implements it.
type API interface {
	ListStateMachines(context.Context, *sfn.ListStateMachinesInput, ...func(*sfn.Options)) (*sfn.ListStateMachinesOutput, error)
	StartExecution(context.Context, *sfn.StartExecutionInput, ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
	ListExecutions(context.Context, *sfn.ListExecutionsInput, ...func(*sfn.Options)) (*sfn.ListExecutionsOutput, error)
	DescribeExecution(context.Context, *sfn.DescribeExecutionInput, ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error)
	GetExecutionHistory(context.Context, *sfn.GetExecutionHistoryInput, ...func(*sfn.Options)) (*sfn.GetExecutionHistoryOutput, error)
	StopExecution(context.Context, *sfn.StopExecutionInput, ...func(*sfn.Options)) (*sfn.StopExecutionOutput, error)
}

// MaxHistory is how many of an execution's last events Describe returns.
const MaxHistory = 1000

// Executions implements localui.Executions over the Step Functions API. It is safe for
// concurrent use.
type Executions struct {
	api     API
	samples func(stateMachine string) []localui.Sample
}

var _ localui.Executions = (*Executions)(nil)

// New returns Executions calling api. samples gives a state machine's sample inputs by its name;
// nil takes ShippedSamples.
func New(api API, samples func(stateMachine string) []localui.Sample) *Executions {
	if samples == nil {
		samples = ShippedSamples
	}
	return &Executions{api: api, samples: samples}
}

// ShippedSamples offers a state machine named after a shipped definition's file (as sfn-local
// and approvals-local name them: "publish-with-approval" for publish-with-approval.asl.json) its
// sample input, and any other state machine the empty object.
func ShippedSamples(stateMachine string) []localui.Sample {
	if b, err := definitions.Sample(stateMachine + ".asl.json"); err == nil {
		return []localui.Sample{{Name: "Sample input", Input: string(b)}, {Name: "Empty", Input: "{}"}}
	}
	return []localui.Sample{{Name: "Empty", Input: "{}"}}
}

// APIError is a Step Functions error, worded for a person: the operation and the service's
// error code and message, without the request's details.
type APIError struct {
	Op  string
	Err error
}

func (e *APIError) Error() string {
	var api smithy.APIError
	if errors.As(e.Err, &api) {
		return fmt.Sprintf("%s: %s: %s", e.Op, api.ErrorCode(), api.ErrorMessage())
	}
	return fmt.Sprintf("%s: %v", e.Op, e.Err)
}

func (e *APIError) Unwrap() error { return e.Err }

func wrap(op string, err error) error { return &APIError{Op: op, Err: err} }

// StateMachines implements localui.Executions.
func (x *Executions) StateMachines(ctx context.Context) ([]localui.StateMachine, error) {
	var out []localui.StateMachine
	pages := sfn.NewListStateMachinesPaginator(x.api, &sfn.ListStateMachinesInput{})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, wrap("list state machines", err)
		}
		for _, sm := range page.StateMachines {
			name := aws.ToString(sm.Name)
			out = append(out, localui.StateMachine{ARN: aws.ToString(sm.StateMachineArn), Name: name, Samples: x.samples(name)})
		}
	}
	slices.SortFunc(out, func(a, b localui.StateMachine) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Start implements localui.Executions.
func (x *Executions) Start(ctx context.Context, stateMachineARN, name, input string) (string, error) {
	in := &sfn.StartExecutionInput{StateMachineArn: aws.String(stateMachineARN), Input: aws.String(input)}
	if name != "" {
		in.Name = aws.String(name)
	}
	out, err := x.api.StartExecution(ctx, in)
	if err != nil {
		return "", wrap("start the execution", err)
	}
	return aws.ToString(out.ExecutionArn), nil
}

// Stop implements localui.Executions.
func (x *Executions) Stop(ctx context.Context, executionARN string) error {
	_, err := x.api.StopExecution(ctx, &sfn.StopExecutionInput{
		ExecutionArn: aws.String(executionARN),
		Error:        aws.String("StoppedLocally"),
		Cause:        aws.String("Stopped from the executions panel of the Slack stand-in."),
	})
	if err != nil {
		return wrap("stop the execution", err)
	}
	return nil
}

// List implements localui.Executions. Each running execution costs one more call, to read the
// state it is in from the end of its history.
func (x *Executions) List(ctx context.Context, limit int) ([]localui.Execution, error) {
	machines, err := x.StateMachines(ctx)
	if err != nil {
		return nil, err
	}
	var out []localui.Execution
	for _, sm := range machines {
		page, err := x.api.ListExecutions(ctx, &sfn.ListExecutionsInput{StateMachineArn: aws.String(sm.ARN), MaxResults: int32(min(max(limit, 1), 1000))})
		if err != nil {
			return nil, wrap("list the executions of "+sm.Name, err)
		}
		for _, e := range page.Executions {
			out = append(out, localui.Execution{
				ARN: aws.ToString(e.ExecutionArn), Name: aws.ToString(e.Name), StateMachine: sm.Name,
				Status: string(e.Status), StartDate: aws.ToTime(e.StartDate), StopDate: aws.ToTime(e.StopDate),
			})
		}
	}
	slices.SortStableFunc(out, func(a, b localui.Execution) int {
		return cmp.Or(b.StartDate.Compare(a.StartDate), strings.Compare(b.ARN, a.ARN))
	})
	if len(out) > limit {
		out = out[:limit]
	}
	for i, e := range out {
		if e.Status != string(types.ExecutionStatusRunning) {
			continue
		}
		page, err := x.api.GetExecutionHistory(ctx, &sfn.GetExecutionHistoryInput{
			ExecutionArn: aws.String(e.ARN), ReverseOrder: true, MaxResults: 50, IncludeExecutionData: aws.Bool(false),
		})
		if err != nil {
			return nil, wrap("read the history of "+e.Name, err)
		}
		out[i].State, out[i].WaitsForCallback = currentState(page.Events)
	}
	return out, nil
}

// currentState reads, from the last events of a history (newest first), the state the
// execution last entered and has not left, and whether it waits for a task token there.
func currentState(newestFirst []types.HistoryEvent) (state string, waiting bool) {
	left := map[string]bool{}
	taskEnded := false
	for _, ev := range newestFirst {
		typ := string(ev.Type)
		switch {
		case ev.StateExitedEventDetails != nil:
			left[aws.ToString(ev.StateExitedEventDetails.Name)] = true
		case ev.StateEnteredEventDetails != nil:
			if name := aws.ToString(ev.StateEnteredEventDetails.Name); !left[name] {
				return name, waiting
			}
		case typ == "TaskSucceeded" || typ == "TaskFailed" || typ == "TaskTimedOut":
			taskEnded = true
		case ev.TaskScheduledEventDetails != nil:
			waiting = !taskEnded && strings.HasSuffix(aws.ToString(ev.TaskScheduledEventDetails.Resource), ".waitForTaskToken")
		}
	}
	return "", false
}

// Describe implements localui.Executions.
func (x *Executions) Describe(ctx context.Context, executionARN string) (localui.ExecutionDetail, error) {
	d, err := x.api.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(executionARN)})
	if err != nil {
		return localui.ExecutionDetail{}, wrap("describe the execution", err)
	}
	out := localui.ExecutionDetail{
		Execution: localui.Execution{
			ARN: aws.ToString(d.ExecutionArn), Name: aws.ToString(d.Name), StateMachine: machineName(aws.ToString(d.StateMachineArn)),
			Status: string(d.Status), StartDate: aws.ToTime(d.StartDate), StopDate: aws.ToTime(d.StopDate),
		},
		Input:  maskJSON(aws.ToString(d.Input)),
		Output: maskJSON(aws.ToString(d.Output)),
		Error:  aws.ToString(d.Error),
		Cause:  aws.ToString(d.Cause),
	}
	page, err := x.api.GetExecutionHistory(ctx, &sfn.GetExecutionHistoryInput{
		ExecutionArn: aws.String(executionARN), ReverseOrder: true, MaxResults: MaxHistory,
	})
	if err != nil {
		return localui.ExecutionDetail{}, wrap("read the execution's history", err)
	}
	events := slices.Clone(page.Events)
	slices.Reverse(events)
	out.Truncated = page.NextToken != nil
	out.History = historyEvents(events)
	if out.Status == string(types.ExecutionStatusRunning) {
		slices.Reverse(events)
		out.State, out.WaitsForCallback = currentState(events)
	}
	return out, nil
}

// machineName is the name part of a state machine ARN.
func machineName(arn string) string {
	return arn[strings.LastIndexByte(arn, ':')+1:]
}

// historyEvents turns events (oldest first) into the panel's, each attributed to the state it
// happened in.
func historyEvents(events []types.HistoryEvent) []localui.HistoryEvent {
	out := make([]localui.HistoryEvent, 0, len(events))
	state := ""
	for _, ev := range events {
		if ev.StateEnteredEventDetails != nil {
			state = aws.ToString(ev.StateEnteredEventDetails.Name)
		}
		e := localui.HistoryEvent{
			ID: ev.Id, Timestamp: aws.ToTime(ev.Timestamp), Type: string(ev.Type), State: state, Details: details(ev),
		}
		if strings.HasPrefix(e.Type, "Execution") {
			e.State = ""
		}
		if ev.StateExitedEventDetails != nil {
			e.State = aws.ToString(ev.StateExitedEventDetails.Name)
			state = ""
		}
		out = append(out, e)
	}
	return out
}
