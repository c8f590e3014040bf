package devstack_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/sfnlocal/host"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// The whole product on a shipped state machine: the local engine runs the
// ASL, invokes the real notifier, which posts to Slack; a person clicks;
// the bot resumes the execution through the Step Functions API; the
// workflow publishes the picked draft.
func TestShippedWorkflowEndToEnd(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var published []map[string]any
	e := newEnv(t, 2, func(o *devstack.Options) {
		o.Engine = true
		o.Functions = map[string]lambda.Handler{
			"draft-agent": func(context.Context, []byte) ([]byte, error) {
				return []byte(`{"drafts":["Callbacks let a workflow wait.","Pause any workflow for a person."],"summary":"Two drafts."}`), nil
			},
			"publish": func(_ context.Context, payload []byte) ([]byte, error) {
				var p map[string]any
				_ = json.Unmarshal(payload, &p)
				mu.Lock()
				published = append(published, p)
				mu.Unlock()
				return []byte(`{"url":"https://blog.example/p/1"}`), nil
			},
		}
	})
	raw, err := definitions.Load(definitions.PublishWithApproval)
	if err != nil {
		t.Fatal(err)
	}
	def, err := host.Substitute(raw, map[string]string{
		definitions.Channel: channel, definitions.Approvers: alice,
		definitions.NotifierFunctionArn: devstack.NotifierFunction, definitions.DraftAgentFunctionArn: "draft-agent", definitions.PublishFunctionArn: "publish",
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := e.ctx()
	machine, err := e.stack.CreateStateMachine(ctx, "publish-with-approval", def)
	if err != nil {
		t.Fatal(err)
	}
	arn, err := e.stack.StartExecution(ctx, machine, "post-2026-11-30", map[string]any{
		"topic": "Step Functions callbacks", "requestedBy": bob,
	})
	if err != nil {
		t.Fatal(err)
	}

	request := e.requestWithButtons(channel)
	var approve fakeslack.ButtonRef
	for _, b := range fakeslack.ButtonActions(request.Blocks) {
		if b.Text == "Approve draft 2" {
			approve = b
		}
	}
	if approve.ActionID == "" {
		t.Fatalf("no Approve draft 2 button in %s", request.Blocks)
	}
	id, err := e.stack.Slack.Click(alice, channel, request.TS, approve.ActionID, approve.Value)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.stack.Slack.WaitAck(ctx, id); err != nil {
		t.Fatal(err)
	}

	ex, err := e.stack.WaitExecution(ctx, arn)
	if err != nil || ex.Status != "SUCCEEDED" {
		t.Fatalf("execution = %s %s %s, %v", ex.Status, ex.Error, ex.Cause, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(published) != 1 || published[0]["text"] != "Pause any workflow for a person." || published[0]["approvedBy"] != alice {
		t.Errorf("published %v, want draft 2 approved by alice", published)
	}
	if !strings.Contains(ex.Output, "published") {
		t.Errorf("output = %s", ex.Output)
	}
	e.waitFor("the message to show the outcome", func() bool {
		m, _ := e.stack.Slack.Message(channel, request.TS)
		return m.Updates > 0 && len(fakeslack.ButtonActions(m.Blocks)) == 0
	})

	// The notifier really ran inside the execution: its answer is the
	// approval Task's TaskSubmitted output.
	events, err := e.stack.History(ctx, arn)
	if err != nil {
		t.Fatal(err)
	}
	var submitted bool
	for _, ev := range events {
		if ev.Type == "TaskSubmitted" {
			raw, _ := json.Marshal(ev)
			submitted = submitted || strings.Contains(string(raw), request.TS)
		}
	}
	if !submitted {
		t.Errorf("no TaskSubmitted carries the notifier's answer (ts %s)", request.TS)
	}
}

// requestWithButtons waits for the first message in channel that has
// buttons: a request.
func (e *env) requestWithButtons(channel string) fakeslack.Message {
	e.t.Helper()
	var request fakeslack.Message
	e.waitFor("the request in Slack", func() bool {
		for _, m := range e.stack.Slack.Messages(channel) {
			if len(fakeslack.ButtonActions(m.Blocks)) > 0 {
				request = m
				return true
			}
		}
		return false
	})
	return request
}
