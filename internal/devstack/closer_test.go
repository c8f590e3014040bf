package devstack_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
)

// approveOnce waits for one approval, for at most timeout seconds of the
// whole execution (0: no execution timeout).
func approveOnce(timeout int) []byte {
	execTimeout := ""
	if timeout > 0 {
		execTimeout = fmt.Sprintf(`"TimeoutSeconds": %d,`, timeout)
	}
	return []byte(`{` + execTimeout + `
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
          "requestedBy": "U0BOB",
          "title.$": "$.title",
          "timeoutSeconds": 3600
        }
      },
      "TimeoutSeconds": 3600,
      "End": true
    }
  }
}`)
}

// noChecks turns the replicas' execution checks off, so only the events
// path closes requests.
var noChecks = &workflow.ExecutionChecks{}

// started runs an execution of machine and returns it with its request
// message once posted and recorded.
func (e *env) started(machine, name string) (string, fakeslack.Message) {
	e.t.Helper()
	arn, err := e.stack.StartExecution(e.ctx(), machine, name, map[string]any{"title": "Ship " + name})
	if err != nil {
		e.t.Fatal(err)
	}
	var msg fakeslack.Message
	e.waitFor("the request of "+name, func() bool {
		for _, m := range e.requests() {
			if strings.Contains(string(m.Blocks), "Ship "+name) && len(fakeslack.ButtonActions(m.Blocks)) > 0 {
				msg = m
				return true
			}
		}
		return false
	})
	id := approvalOf(e.t, msg)
	e.eventually("the request message recorded", func() bool {
		a, err := e.stack.Service.Get(e.ctx(), id)
		return err == nil && a.MessageTS == msg.TS
	})
	return arn, msg
}

// closedSaying waits until the message has no buttons and says text.
func (e *env) closedSaying(m fakeslack.Message, text string) fakeslack.Message {
	e.t.Helper()
	var now fakeslack.Message
	e.waitFor(fmt.Sprintf("message %s to lose its buttons and say %q", m.TS, text), func() bool {
		now, _ = e.stack.Slack.Message(m.Channel, m.TS)
		return len(fakeslack.ButtonActions(now.Blocks)) == 0 && strings.Contains(blocksText(now), text)
	})
	return now
}

// threadReplies returns the replies under the request message.
func (e *env) threadReplies(m fakeslack.Message) []fakeslack.Message {
	var out []fakeslack.Message
	for _, r := range e.stack.Slack.Messages(m.Channel) {
		if r.ThreadTS == m.TS && r.TS != m.TS {
			out = append(out, r)
		}
	}
	return out
}

// pendingOf runs /approvals pending as user and returns the answer.
func (e *env) pendingOf(user string) string {
	e.t.Helper()
	before := len(e.stack.Slack.ResponsePosts())
	id, err := e.stack.Slack.Slash(user, channel, "/approvals", "pending")
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.stack.Slack.WaitAck(e.ctx(), id); err != nil {
		e.t.Fatal(err)
	}
	var body string
	e.waitFor("the pending list", func() bool {
		posts := e.stack.Slack.ResponsePosts()
		if len(posts) == before {
			return false
		}
		body = string(posts[len(posts)-1].Body)
		return true
	})
	return body
}

// eventOf returns the engine's event of the execution with the status.
func (e *env) eventOf(arn, status string) []byte {
	e.t.Helper()
	for _, ev := range e.stack.Events() {
		var v struct {
			Detail struct{ ExecutionArn, Status string } `json:"detail"`
		}
		if json.Unmarshal(ev, &v) == nil && v.Detail.ExecutionArn == arn && v.Detail.Status == status {
			return ev
		}
	}
	e.t.Fatalf("the engine emitted no %s event for %s", status, arn)
	return nil
}

// StopExecution on the local engine: its status change event reaches the
// events handler, which closes the request (message without buttons saying
// it was aborted and when, a reply in its thread, gone from /approvals
// pending). The same event again and a RUNNING event after it change
// nothing. When Slack cannot take the update, the request is closed all
// the same, and a click on it is answered privately with the reason (and
// makes the bot fix the message).
func TestStoppedExecutionClosesItsRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, func(o *devstack.Options) {
		o.Engine, o.ExecutionChecks = true, noChecks
		o.Bot.SweepGrace = time.Minute // the click, not the sweeper, fixes the message
	})
	ctx := e.ctx()
	machine, err := e.stack.CreateStateMachine(ctx, "approve-once", approveOnce(0))
	if err != nil {
		t.Fatal(err)
	}
	arn, msg := e.started(machine, "stopped")
	id := approvalOf(t, msg)
	if body := e.pendingOf(alice); !strings.Contains(body, id) {
		t.Fatalf("/approvals pending before the stop = %s, want %s", body, id)
	}

	if err := e.stack.StopExecution(ctx, arn, "Superseded", "a newer run took over"); err != nil {
		t.Fatal(err)
	}
	m := e.closedSaying(msg, "the execution was aborted at")
	e.waitFor("the thread reply", func() bool {
		r := e.threadReplies(msg)
		return len(r) == 1 && strings.HasPrefix(r[0].Text, "Cancelled: the execution was aborted at")
	})
	if got := e.status(id); got != workflow.StatusCancelled {
		t.Errorf("the request is %s, want cancelled", got)
	}
	if body := e.pendingOf(alice); strings.Contains(body, id) {
		t.Errorf("/approvals pending still lists the closed request: %s", body)
	}

	for _, status := range []string{"ABORTED", "RUNNING"} { // a duplicate, then one out of order
		resp, err := e.stack.DeliverEvent(ctx, e.eventOf(arn, status))
		if err != nil || len(resp.Closed) != 0 {
			t.Errorf("the %s event again = %+v, %v; want nothing closed", status, resp, err)
		}
	}
	if again, _ := e.stack.Slack.Message(msg.Channel, msg.TS); again.Updates != m.Updates || len(e.threadReplies(msg)) != 1 {
		t.Errorf("replayed events touched Slack: %d updates (was %d), %d replies", again.Updates, m.Updates, len(e.threadReplies(msg)))
	}

	// Slack refuses the update: the request is closed anyway.
	arn, msg = e.started(machine, "stopped-in-an-outage")
	id = approvalOf(t, msg)
	e.stack.Slack.FailMethod("chat.update", 1, 503)
	if err := e.stack.StopExecution(ctx, arn, "", ""); err != nil {
		t.Fatal(err)
	}
	e.eventually("the request closed", func() bool { return e.status(id) == workflow.StatusCancelled })
	e.clickOn(alice, msg, "Approve")
	e.ephemeralTo(alice, "This request was cancelled because the execution was aborted at")
	e.closedSaying(msg, "the execution was aborted at")
	if got := e.status(id); got != workflow.StatusCancelled {
		t.Errorf("the click changed the closed request to %s", got)
	}
}

// An execution whose own TimeoutSeconds fires (on the engine's fake clock)
// is closed the same way, saying it timed out.
func TestTimedOutExecutionClosesItsRequest(t *testing.T) {
	t.Parallel()
	clock := sfnlocal.NewFakeClock(time.Now())
	e := newEnv(t, 1, func(o *devstack.Options) { o.Engine, o.EngineClock, o.ExecutionChecks = true, clock, noChecks })
	ctx := e.ctx()
	machine, err := e.stack.CreateStateMachine(ctx, "approve-within-a-minute", approveOnce(60))
	if err != nil {
		t.Fatal(err)
	}
	arn, msg := e.started(machine, "too-slow")
	id := approvalOf(t, msg)
	clock.Advance(61 * time.Second)
	ex, err := e.stack.WaitExecution(ctx, arn)
	if err != nil || ex.Status != "TIMED_OUT" {
		t.Fatalf("execution = %s, %v; want TIMED_OUT", ex.Status, err)
	}
	e.closedSaying(msg, "the execution timed out at")
	e.waitFor("the thread reply", func() bool {
		r := e.threadReplies(msg)
		return len(r) == 1 && strings.HasPrefix(r[0].Text, "Cancelled: the execution timed out at")
	})
	if body := e.pendingOf(alice); strings.Contains(body, id) {
		t.Errorf("/approvals pending still lists the closed request: %s", body)
	}
	a, err := e.stack.Service.Get(ctx, id)
	if err != nil || a.Cancellation == nil || a.Cancellation.Reason != workflow.ReasonExecutionTimedOut || !a.Cancellation.StoppedAt.Equal(ex.StopDate.Truncate(time.Millisecond)) {
		t.Errorf("stored = %+v, %v; want timed out at %v", a.Cancellation, err, ex.StopDate)
	}
}

// With its status change event lost (the events function is down), the
// bot's sweeper notices the stopped execution with DescribeExecution and
// closes its request.
func TestSweeperClosesTheRequestOfAnExecutionWhoseEventWasLost(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, func(o *devstack.Options) {
		o.Engine = true
		o.ExecutionChecks = &workflow.ExecutionChecks{PerRun: 10, Every: 100 * time.Millisecond}
		o.Functions = map[string]lambda.Handler{
			devstack.EventsFunction: func(context.Context, []byte) ([]byte, error) { return nil, errors.New("function down") },
		}
	})
	ctx := e.ctx()
	machine, err := e.stack.CreateStateMachine(ctx, "approve-once", approveOnce(0))
	if err != nil {
		t.Fatal(err)
	}
	arn, msg := e.started(machine, "event-lost")
	if err := e.stack.StopExecution(ctx, arn, "", ""); err != nil {
		t.Fatal(err)
	}
	e.closedSaying(msg, "the execution was aborted at")
	e.waitFor("the thread reply", func() bool { return len(e.threadReplies(msg)) == 1 })
	if got := e.status(approvalOf(t, msg)); got != workflow.StatusCancelled {
		t.Errorf("the request is %s, want cancelled", got)
	}
}
