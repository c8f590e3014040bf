package sfnexec_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/internal/localui"
	"github.com/sfnapprovals/approvals/internal/localui/sfnexec"
	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/sfnlocal/sfnapi"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
	"github.com/sfnapprovals/approvals/workflow/definitions"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

const waitTimeout = 30 * time.Second

// approvalMachine waits in Approve for a task token, which it hands the function "ask".
const approvalMachine = `{
  "StartAt": "Prepare",
  "States": {
    "Prepare": {"Type": "Pass", "Next": "Approve"},
    "Approve": {
      "Type": "Task",
      "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken",
      "Parameters": {"FunctionName": "ask", "Payload": {"taskToken.$": "$$.Task.Token", "title": "Ship it? ✅ <b>"}},
      "End": true
    }
  }
}`

// fixture is the local engine behind its API, reached by the real aws-sdk-go-v2 client.
type fixture struct {
	engine *sfnlocal.Engine
	x      *sfnexec.Executions
	tokens chan string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{tokens: make(chan string, 16)}
	fns := lambda.New(nil)
	fns.Register("ask", func(_ context.Context, payload []byte) ([]byte, error) {
		var p struct {
			TaskToken string `json:"taskToken"`
		}
		_ = json.Unmarshal(payload, &p)
		f.tokens <- p.TaskToken
		return []byte(`{}`), nil
	})
	f.engine = sfnlocal.New(sfnlocal.Options{Integrations: []task.Integration{integrations.NewRouter(nil, fns)}})
	t.Cleanup(f.engine.Close)
	api := httptest.NewServer(sfnapi.NewHandler(f.engine))
	t.Cleanup(api.Close)
	f.x = sfnexec.New(stepfunctionstest.NewClient(context.Background(), api.URL), nil)
	return f
}

func (f *fixture) create(t *testing.T, name, def string) string {
	t.Helper()
	sm, err := f.engine.CreateStateMachine(ctx(t), sfnlocal.CreateStateMachineInput{Name: name, Definition: def, RoleArn: "arn:aws:iam::123456789012:role/test"})
	if err != nil {
		t.Fatal(err)
	}
	return sm.StateMachineArn
}

// waiting starts an approval execution and waits until its task waits for its token.
func (f *fixture) waiting(t *testing.T, machine string) (arn, token string) {
	t.Helper()
	arn, err := f.x.Start(ctx(t), machine, "", `{"who": "U0BOB", "taskToken": "not really one"}`)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case token = <-f.tokens:
	case <-time.After(waitTimeout):
		t.Fatal("the task was never invoked")
	}
	return arn, token
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return c
}

func TestStateMachinesOfferSamples(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	shipped := f.create(t, "publish-with-approval", `{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`)
	mine := f.create(t, "mine", approvalMachine)
	got, err := f.x.StateMachines(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	sample, err := definitions.Sample(definitions.PublishWithApproval)
	if err != nil {
		t.Fatal(err)
	}
	want := []localui.StateMachine{
		{ARN: mine, Name: "mine", Samples: []localui.Sample{{Name: "Empty", Input: "{}"}}},
		{ARN: shipped, Name: "publish-with-approval", Samples: []localui.Sample{{Name: "Sample input", Input: string(sample)}, {Name: "Empty", Input: "{}"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("StateMachines (-want +got):\n%s", diff)
	}
}

// A running execution is listed with the state it waits in; the history shows where each event
// happened, and never the task token.
func TestExecutionsOnTheEngine(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	machine := f.create(t, "mine", approvalMachine)
	arn, token := f.waiting(t, machine)

	list, err := f.x.List(ctx(t), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ARN != arn || list[0].Status != "RUNNING" || list[0].State != "Approve" || !list[0].WaitsForCallback || list[0].StateMachine != "mine" {
		t.Fatalf("List = %+v", list)
	}

	d, err := f.x.Describe(ctx(t), arn)
	if err != nil {
		t.Fatal(err)
	}
	if d.State != "Approve" || !d.WaitsForCallback || d.Truncated {
		t.Errorf("Describe: state %q waiting %v truncated %v", d.State, d.WaitsForCallback, d.Truncated)
	}
	var types []string
	states := map[string]string{}
	all := d.Input + d.Output
	for _, ev := range d.History {
		types = append(types, ev.Type)
		states[ev.Type] = ev.State
		all += ev.Details
	}
	wantTypes := []string{"ExecutionStarted", "PassStateEntered", "PassStateExited", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSubmitted"}
	if diff := cmp.Diff(wantTypes, types); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if states["TaskScheduled"] != "Approve" || states["PassStateExited"] != "Prepare" || states["ExecutionStarted"] != "" {
		t.Errorf("states of the events: %v", states)
	}
	if strings.Contains(all, token) || strings.Contains(all, "not really one") {
		t.Errorf("a task token shows in the execution's data or history")
	}
	if !strings.Contains(all, `"taskToken": "`+sfnexec.Masked+`"`) || !strings.Contains(all, `"title": "Ship it? ✅ <b>"`) {
		t.Errorf("the scheduled task's parameters, token masked, are not shown as JSON:\n%s", all)
	}

	if err := f.engine.SendTaskSuccess(ctx(t), sfnlocal.SendTaskSuccessInput{TaskToken: token, Output: `{"ok": true}`}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.engine.WaitExecution(ctx(t), arn); err != nil {
		t.Fatal(err)
	}
	d, err = f.x.Describe(ctx(t), arn)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != "SUCCEEDED" || d.State != "" || d.Output != "{\n  \"ok\": true\n}" || d.StopDate.IsZero() {
		t.Errorf("after the token: %s in %q, output %q, stopped %v", d.Status, d.State, d.Output, d.StopDate)
	}
}

func TestStopAndErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	machine := f.create(t, "mine", approvalMachine)
	arn, _ := f.waiting(t, machine)
	if err := f.x.Stop(ctx(t), arn); err != nil {
		t.Fatal(err)
	}
	x, err := f.engine.WaitExecution(ctx(t), arn)
	if err != nil || x.Status != "ABORTED" || !strings.Contains(x.Cause, "executions panel") {
		t.Errorf("stopped execution: %s %s %v", x.Status, x.Cause, err)
	}

	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"unknown state machine", func() error {
			_, err := f.x.Start(ctx(t), machine+"-gone", "", "{}")
			return err
		}, "start the execution: StateMachineDoesNotExist: "},
		{"bad name", func() error {
			_, err := f.x.Start(ctx(t), machine, "no spaces allowed", "{}")
			return err
		}, "start the execution: InvalidName: "},
		{"unknown execution", func() error {
			_, err := f.x.Describe(ctx(t), arn+"-gone")
			return err
		}, "describe the execution: ExecutionDoesNotExist: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "RequestID") {
				t.Errorf("error = %v, want %q… without the request's details", err, tt.want)
			}
		})
	}
}
