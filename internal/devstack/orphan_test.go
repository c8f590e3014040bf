package devstack_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/sfnlocal/host"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// requests returns the channel's messages that carry request buttons or
// once did (a request's outcome keeps its "ID `ap_…`" context), oldest
// first.
func (e *env) requests() []fakeslack.Message {
	var out []fakeslack.Message
	for _, m := range e.stack.Slack.Messages(channel) {
		if m.ThreadTS == "" || m.ThreadTS == m.TS {
			if strings.Contains(string(m.Blocks), "ID `ap_") {
				out = append(out, m)
			}
		}
	}
	return out
}

// approvalOf is the approval ID the request message's buttons carry.
func approvalOf(t *testing.T, m fakeslack.Message) string {
	t.Helper()
	for _, b := range fakeslack.ButtonActions(m.Blocks) {
		return b.Value
	}
	t.Fatalf("message %s has no buttons", m.TS)
	return ""
}

// clickOn presses the button labelled label on the message as user.
func (e *env) clickOn(user string, m fakeslack.Message, label string) {
	e.t.Helper()
	for _, b := range fakeslack.ButtonActions(m.Blocks) {
		if b.Text == label {
			id, err := e.stack.Slack.Click(user, m.Channel, m.TS, b.ActionID, b.Value)
			if err != nil {
				e.t.Fatal(err)
			}
			if _, err := e.stack.Slack.WaitAck(e.ctx(), id); err != nil {
				e.t.Fatal(err)
			}
			return
		}
	}
	e.t.Fatalf("message %s has no button %q", m.TS, label)
}

func (e *env) status(id string) workflow.Status {
	a, err := e.stack.Service.Get(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return a.Status
}

// A post Slack accepted but answered with a 500: the notifier fails with
// SlackPostFailed, the shipped workflow's Retry invokes it again with a new
// token, and a second request is posted. The first must not keep live
// buttons or stay in /approvals pending.
func TestRetriedRequestReplacesTheOrphan(t *testing.T) {
	t.Parallel()
	var published atomic.Int32
	e := newEnv(t, 1, func(o *devstack.Options) {
		o.Engine = true
		o.Functions = map[string]lambda.Handler{
			"draft-agent": func(context.Context, []byte) ([]byte, error) {
				return []byte(`{"drafts":["Callbacks let a workflow wait."],"summary":"One draft."}`), nil
			},
			"publish": func(context.Context, []byte) ([]byte, error) {
				published.Add(1)
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
	e.stack.Slack.FailMethodAfterApplying("chat.postMessage", 1, http.StatusInternalServerError)
	arn, err := e.stack.StartExecution(ctx, machine, "post-orphan", map[string]any{
		"topic": "Step Functions callbacks", "requestedBy": bob,
	})
	if err != nil {
		t.Fatal(err)
	}

	e.waitFor("two request messages", func() bool { return len(e.requests()) == 2 })
	msgs := e.requests()
	old, newer := msgs[0], msgs[1]
	oldID, newID := approvalOf(t, old), approvalOf(t, newer)
	e.eventually("the orphan cancelled by the retried request", func() bool { return e.status(oldID) == workflow.StatusCancelled })

	e.clickOn(alice, old, "Approve draft 1")
	link := e.stack.Slack.Permalink(channel, newer.TS, "")
	e.ephemeralTo(alice, "replaced by a newer request")
	e.ephemeralTo(alice, link)
	e.waitFor("the orphan's message to show it was replaced", func() bool {
		m, _ := e.stack.Slack.Message(channel, old.TS)
		return len(fakeslack.ButtonActions(m.Blocks)) == 0 && strings.Contains(blocksText(m), "Replaced by a newer request") &&
			strings.Contains(blocksText(m), "<"+link+"|")
	})
	if got := e.status(oldID); got != workflow.StatusCancelled {
		t.Errorf("the click on the orphan changed it to %s", got)
	}
	if got := e.status(newID); got != workflow.StatusPending {
		t.Errorf("the click on the orphan changed the new request to %s", got)
	}

	id, err := e.stack.Slack.Slash(alice, channel, "/approvals", "pending")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.stack.Slack.WaitAck(ctx, id); err != nil {
		t.Fatal(err)
	}
	var body string
	e.waitFor("the pending list", func() bool {
		posts := e.stack.Slack.ResponsePosts()
		if len(posts) == 0 {
			return false
		}
		body = string(posts[0].Body)
		return true
	})
	if !strings.Contains(body, newID) || strings.Contains(body, oldID) || !strings.Contains(body, "1 approval waits") {
		t.Errorf("/approvals pending lists %s, want only %s", body, newID)
	}

	e.clickOn(alice, newer, "Approve draft 1")
	ex, err := e.stack.WaitExecution(ctx, arn)
	if err != nil || ex.Status != "SUCCEEDED" {
		t.Fatalf("execution = %s %s %s, %v", ex.Status, ex.Error, ex.Cause, err)
	}
	events, err := e.stack.History(ctx, arn)
	if err != nil {
		t.Fatal(err)
	}
	var failed, succeeded int
	for _, ev := range events {
		raw, _ := json.Marshal(ev.Details)
		switch {
		case ev.Type == "TaskFailed" && strings.Contains(string(raw), "SlackPostFailed"):
			failed++
		case ev.Type == "TaskSucceeded" && strings.Contains(string(raw), newID):
			succeeded++
		}
	}
	if failed != 1 || succeeded != 1 || published.Load() != 1 {
		t.Errorf("history has %d failed attempts and %d resumes by %s, %d publications; want 1, 1, 1", failed, succeeded, newID, published.Load())
	}
	e.waitFor("the new request's message to show the approval", func() bool {
		m, _ := e.stack.Slack.Message(channel, newer.TS)
		return len(fakeslack.ButtonActions(m.Blocks)) == 0 && strings.Contains(blocksText(m), "Approved")
	})
}

// mapOfApprovals asks for one approval per item, at once: the same state of
// the same execution, each waiting on its own live token.
const mapOfApprovals = `{
  "StartAt": "EachItem",
  "States": {
    "EachItem": {
      "Type": "Map",
      "ItemsPath": "$.items",
      "MaxConcurrency": 2,
      "ItemProcessor": {
        "ProcessorConfig": {"Mode": "INLINE"},
        "StartAt": "Approve",
        "States": {
          "Approve": {
            "Type": "Task",
            "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken",
            "Parameters": {
              "FunctionName": "approvals-notifier",
              "Payload": {
                "taskToken.$": "$$.Task.Token",
                "executionArn.$": "$$.Execution.Id",
                "stateName.$": "$$.State.Name",
                "channel": "C0PUBLISH",
                "approvers": ["U0ALICE"],
                "title.$": "States.Format('Ship item {}', $.item)",
                "timeoutSeconds": 3600
              }
            },
            "TimeoutSeconds": 3600,
            "Retry": [{"ErrorEquals": ["SlackPostFailed"], "IntervalSeconds": 1, "MaxAttempts": 2}],
            "End": true
          }
        }
      },
      "End": true
    }
  }
}`

func TestMapIterationsWaitingOnTheSameStateStayOpen(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, func(o *devstack.Options) { o.Engine = true })
	ctx := e.ctx()
	machine, err := e.stack.CreateStateMachine(ctx, "map-of-approvals", []byte(mapOfApprovals))
	if err != nil {
		t.Fatal(err)
	}
	arn, err := e.stack.StartExecution(ctx, machine, "two-items", map[string]any{
		"items": []map[string]any{{"item": "one"}, {"item": "two"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.waitFor("two request messages", func() bool { return len(e.requests()) == 2 })
	msgs := e.requests()
	ids := []string{approvalOf(t, msgs[0]), approvalOf(t, msgs[1])}
	for _, id := range ids {
		if got := e.status(id); got != workflow.StatusPending {
			t.Fatalf("approval %s is %s, want both pending", id, got)
		}
	}

	e.clickOn(alice, msgs[1], "Approve")
	e.eventually("the second decided", func() bool { return e.status(ids[1]) == workflow.StatusDecided })
	if got := e.status(ids[0]); got != workflow.StatusPending {
		t.Fatalf("deciding one iteration changed the other to %s", got)
	}
	e.clickOn(alice, msgs[0], "Reject")
	e.waitFor("the reject modal", func() bool { return len(e.stack.Slack.Views(alice)) > 0 })
	view := e.stack.Slack.Views(alice)[0]
	sub, err := e.stack.Slack.Submit(alice, view.ID, map[string]map[string]any{
		"reason": {"reason": map[string]any{"type": "plain_text_input", "value": "not this one"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.stack.Slack.WaitAck(ctx, sub); err != nil {
		t.Fatal(err)
	}
	ex, err := e.stack.WaitExecution(ctx, arn)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Status != "FAILED" || ex.Error != workflow.ErrorRejected || !strings.Contains(ex.Cause, "not this one") {
		t.Errorf("execution = %s %s %q, want FAILED by the rejection of the first item", ex.Status, ex.Error, ex.Cause)
	}
	for _, id := range ids {
		e.eventually("approval "+id+" decided", func() bool { return e.status(id) == workflow.StatusDecided })
	}
}
