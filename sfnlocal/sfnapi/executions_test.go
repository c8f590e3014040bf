package sfnapi_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

// waitDef routes on $.kind through a Choice and a 10-second Wait.
const waitDef = `{"StartAt":"Tag","States":{
	"Tag":{"Type":"Pass","Result":"tagged","ResultPath":"$.tag","Next":"Route"},
	"Route":{"Type":"Choice","Choices":[{"Variable":"$.kind","StringEquals":"slow","Next":"Pause"}],"Default":"Done"},
	"Pause":{"Type":"Wait","Seconds":10,"Next":"Done"},
	"Done":{"Type":"Pass","Parameters":{"kind.$":"$.kind","tag.$":"$.tag"},"End":true}}}`

func TestPassChoiceWaitOverTheWire(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := testContext(t)
	machine := f.create(waitDef)

	fast := f.finished(f.start(machine, `{"kind":"fast"}`))
	jsonEqual(t, aws.ToString(fast.Output), `{"kind":"fast","tag":"tagged"}`)

	slow := f.start(machine, `{"kind":"slow"}`)
	// One timer is the execution's time limit, the other the Wait state.
	if err := f.clock.BlockUntil(ctx, 2); err != nil {
		t.Fatalf("the Wait state never waited: %v", err)
	}
	running, err := f.client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(slow)})
	if err != nil {
		t.Fatal(err)
	}
	if running.Status != types.ExecutionStatusRunning || running.StopDate != nil || running.Output != nil {
		t.Errorf("waiting execution = %s, stop %v, output %v", running.Status, running.StopDate, running.Output)
	}
	if running.RedriveStatus != types.ExecutionRedriveStatusNotRedrivable || aws.ToString(running.RedriveStatusReason) != "Execution is RUNNING and cannot be redriven" {
		t.Errorf("waiting execution: redrive %s (%s), want AWS's NOT_REDRIVABLE for a running one", running.RedriveStatus, aws.ToString(running.RedriveStatusReason))
	}
	f.clock.Advance(10 * time.Second)
	x := f.finished(slow)
	jsonEqual(t, aws.ToString(x.Output), `{"kind":"slow","tag":"tagged"}`)
	if aws.ToString(x.RedriveStatusReason) != "Execution is SUCCEEDED and cannot be redriven" {
		t.Errorf("succeeded execution: redrive reason %q, want AWS's", aws.ToString(x.RedriveStatusReason))
	}
	if got := x.StopDate.Sub(*x.StartDate); got != 10*time.Second {
		t.Errorf("the execution took %v, want 10s", got)
	}
	var got []types.HistoryEventType
	for _, ev := range f.history(slow).Events {
		got = append(got, ev.Type)
	}
	want := []types.HistoryEventType{"ExecutionStarted", "PassStateEntered", "PassStateExited", "ChoiceStateEntered", "ChoiceStateExited",
		"WaitStateEntered", "WaitStateExited", "PassStateEntered", "PassStateExited", "ExecutionSucceeded"}
	if !slices.Equal(got, want) {
		t.Errorf("history = %v\nwant      %v", got, want)
	}
}

func TestStartExecutionIdempotency(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := testContext(t)
	machine := f.create(approvalDef)
	in := &sfn.StartExecutionInput{StateMachineArn: aws.String(machine), Name: aws.String("request-1"), Input: aws.String(`{"id":1}`)}
	first, err := f.client.StartExecution(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	f.nextPayload()
	again, err := f.client.StartExecution(ctx, in)
	if err != nil {
		t.Fatalf("StartExecution again while running: %v", err)
	}
	if aws.ToString(again.ExecutionArn) != aws.ToString(first.ExecutionArn) || !again.StartDate.Equal(*first.StartDate) {
		t.Errorf("StartExecution again = %s at %v, want %s at %v", aws.ToString(again.ExecutionArn), again.StartDate, aws.ToString(first.ExecutionArn), first.StartDate)
	}
	_, err = f.client.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(machine), Name: aws.String("request-1"), Input: aws.String(`{"id":2}`)})
	wantAPIError[*types.ExecutionAlreadyExists](t, err)
}

func TestStartExecutionRefusesUndefinedTestCase(t *testing.T) {
	t.Parallel()
	f := newFixture(t) // no mock configuration: no test case is defined
	machine := f.create(approvalDef)
	_, err := f.client.StartExecution(testContext(t), &sfn.StartExecutionInput{StateMachineArn: aws.String(machine + "#HappyPath")})
	if e := wantAPIError[*types.ValidationException](t, err); !strings.Contains(e.ErrorMessage(), "'HappyPath'") {
		t.Errorf("message %q does not name the test case", e.ErrorMessage())
	}
}

func TestListExecutionsPages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := testContext(t)
	machine := f.create(waitDef)
	for range 3 {
		f.finished(f.start(machine, `{"kind":"fast"}`))
	}
	running := f.start(machine, `{"kind":"slow"}`)

	pages := sfn.NewListExecutionsPaginator(f.client, &sfn.ListExecutionsInput{StateMachineArn: aws.String(machine), MaxResults: 3})
	var all []types.ExecutionListItem
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			t.Fatalf("ListExecutions: %v", err)
		}
		all = append(all, page.Executions...)
	}
	if len(all) != 4 {
		t.Fatalf("listed %d executions, want 4", len(all))
	}
	for _, x := range all {
		if aws.ToString(x.StateMachineArn) != machine || x.StartDate == nil || aws.ToString(x.Name) == "" {
			t.Errorf("list item = %+v", x)
		}
		if (x.Status == types.ExecutionStatusRunning) != (aws.ToString(x.ExecutionArn) == running) || (x.StopDate == nil) != (x.Status == types.ExecutionStatusRunning) {
			t.Errorf("list item %s: status %s, stop %v", aws.ToString(x.ExecutionArn), x.Status, x.StopDate)
		}
	}

	out, err := f.client.ListExecutions(ctx, &sfn.ListExecutionsInput{StateMachineArn: aws.String(machine), StatusFilter: types.ExecutionStatusRunning})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Executions) != 1 || aws.ToString(out.Executions[0].ExecutionArn) != running || out.NextToken != nil {
		t.Errorf("RUNNING executions = %+v", out.Executions)
	}
	_, err = f.client.ListExecutions(ctx, &sfn.ListExecutionsInput{StateMachineArn: aws.String(machine + "-missing")})
	wantAPIError[*types.StateMachineDoesNotExist](t, err)
}

func TestGetExecutionHistoryPagesAndOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := testContext(t)
	arn := f.start(f.create(waitDef), `{"kind":"fast"}`)
	f.finished(arn)
	all := f.history(arn).Events
	if len(all) != 8 {
		t.Fatalf("history has %d events, want 8", len(all))
	}

	for _, reverse := range []bool{false, true} {
		pages := sfn.NewGetExecutionHistoryPaginator(f.client, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn), MaxResults: 3, ReverseOrder: reverse})
		var ids []int64
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				t.Fatalf("GetExecutionHistory: %v", err)
			}
			if len(page.Events) > 3 {
				t.Errorf("page of %d events, want at most 3", len(page.Events))
			}
			for _, ev := range page.Events {
				ids = append(ids, ev.Id)
			}
		}
		want := []int64{1, 2, 3, 4, 5, 6, 7, 8}
		if reverse {
			slices.Reverse(want)
		}
		if !slices.Equal(ids, want) {
			t.Errorf("reverseOrder=%v: ids %v, want %v", reverse, ids, want)
		}
	}

	bare, err := f.client.GetExecutionHistory(ctx, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn), IncludeExecutionData: aws.Bool(false)})
	if err != nil {
		t.Fatal(err)
	}
	started, exited := bare.Events[0].ExecutionStartedEventDetails, bare.Events[2].StateExitedEventDetails
	if started == nil || started.Input != nil || aws.ToString(started.RoleArn) != roleArn || exited == nil || exited.Output != nil || aws.ToString(exited.Name) != "Tag" {
		t.Errorf("includeExecutionData=false kept data: %+v %+v", started, exited)
	}
	if aws.ToString(all[2].StateExitedEventDetails.Output) == "" {
		t.Error("includeExecutionData by default dropped data")
	}

	_, err = f.client.GetExecutionHistory(ctx, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn), NextToken: aws.String("bogus")})
	wantAPIError[*types.InvalidToken](t, err)
	_, err = f.client.GetExecutionHistory(ctx, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn), MaxResults: 1001})
	wantCode(t, err, "ValidationException")
}

// An EvaluationFailed event (a Map whose ItemsPath is not an array)
// reaches the real client with its details.
func TestEvaluationFailedOverTheWire(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	arn := f.start(f.create(`{"StartAt":"M","States":{"M":{"Type":"Map","ItemsPath":"$.items","ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}}}`), `{"items":true}`)
	if x := f.finished(arn); x.Status != types.ExecutionStatusFailed || aws.ToString(x.Error) != "States.QueryEvaluationError" {
		t.Fatalf("status %s %s, want FAILED States.QueryEvaluationError", x.Status, aws.ToString(x.Error))
	}
	var got *types.EvaluationFailedEventDetails
	for _, ev := range f.history(arn).Events {
		if ev.Type == types.HistoryEventTypeEvaluationFailed {
			got = ev.EvaluationFailedEventDetails
		}
	}
	if got == nil || aws.ToString(got.State) != "M" || aws.ToString(got.Error) != "States.QueryEvaluationError" ||
		aws.ToString(got.Cause) != "An error occurred while executing the state 'M' (entered at the event id #2). Map state input must be an array but was: true" {
		t.Errorf("EvaluationFailed details = %+v", got)
	}
}
