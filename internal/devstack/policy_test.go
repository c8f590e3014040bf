package devstack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/host"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/definitions"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

// submit submits user's open modal of callbackID and waits for the ack.
func (e *env) submit(user, callbackID string, values map[string]map[string]any) fakeslack.Ack {
	e.t.Helper()
	view := e.openedView(user, callbackID)
	id, err := e.stack.Slack.Submit(user, view.ID, values)
	if err != nil {
		e.t.Fatal(err)
	}
	ack, err := e.stack.Slack.WaitAck(e.ctx(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return ack
}

// replies are the texts of the replies in p's thread.
func (e *env) replies(p devstack.Pending) []string {
	var out []string
	for _, m := range e.stack.Slack.Replies(p.Response.Channel, p.Response.TS) {
		out = append(out, m.Text)
	}
	return out
}

// Two people approve at the same moment on two replicas: the quorum of two
// is reached once, the execution resumed once with both in "approvals".
func TestQuorumOfTwoConcurrentlyOnTwoReplicas(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2)
	p := e.request(func(m map[string]any) { m["quorum"] = 2 })
	action := e.button(p, "Approve draft 1")

	var wg sync.WaitGroup
	for _, who := range []string{alice, carol} {
		wg.Go(func() {
			id, err := e.stack.Slack.Click(who, p.Response.Channel, p.Response.TS, action, p.Response.ApprovalID)
			if err == nil {
				_, err = e.stack.Slack.WaitAck(e.ctx(), id)
			}
			if err != nil {
				t.Errorf("click of %s: %v", who, err)
			}
		})
	}
	wg.Wait()
	o := e.resumed(p)
	if o.State != stepfunctionstest.StateSucceeded {
		t.Fatalf("outcome = %+v", o)
	}
	out := decode(t, o.Output)
	var who []string
	for _, v := range out["approvals"].([]any) {
		who = append(who, v.(map[string]any)["userId"].(string))
	}
	slices.Sort(who)
	if !slices.Equal(who, []string{alice, carol}) || out["draftIndex"] != 0.0 {
		t.Errorf("output = %v, want approvals by both of draft 1", out)
	}
	if n := e.stack.SFN.Calls("SendTaskSuccess"); n != 1 {
		t.Errorf("SendTaskSuccess called %d times, want once", n)
	}
	final := e.settled(p)
	if !strings.Contains(string(final.Blocks), "2 of 2 approvals") {
		t.Errorf("the outcome does not show both approvals: %s", final.Blocks)
	}
}

// An approval below the quorum, then a rejection: the request is rejected.
func TestRejectionAfterOneApproval(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2)
	p := e.request(func(m map[string]any) { m["quorum"] = 2 })
	e.click(alice, p, "Approve draft 2")
	e.ephemeralTo(alice, "is counted (1 of 2 approvals so far)")
	e.waitFor("the progress on the message", func() bool {
		m := e.message(p)
		return strings.Contains(blocksText(m), "Draft 2: *1 of 2 approvals*: <@"+alice+">") && len(fakeslack.ButtonActions(m.Blocks)) > 0
	})
	if o := e.stack.SFN.Outcome(p.Token); o.State != stepfunctionstest.StateOpen {
		t.Fatalf("a vote below the quorum closed the task: %+v", o)
	}
	e.click(carol, p, "Reject")
	e.submit(carol, "reject", map[string]map[string]any{"reason": {"reason": map[string]any{"type": "plain_text_input", "value": "Wrong week."}}})
	if o := e.resumed(p); o.State != stepfunctionstest.StateFailed || o.Error != "Rejected" || o.Cause != "Wrong week." {
		t.Fatalf("outcome = %+v", o)
	}
	final := e.settled(p)
	if !strings.Contains(blocksText(final), "Rejected") {
		t.Errorf("message = %s", final.Blocks)
	}
}

// An approver hands the request to somebody else: the delegate decides,
// the delegator may not any more, the thread and message say so, and the
// hand-over reaches the output and the delegator's history.
func TestHandOverEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2)
	p := e.request(nil)
	e.click(alice, p, "Hand over")
	e.submit(alice, "delegate", map[string]map[string]any{"delegate": {"delegate": map[string]any{"type": "users_select", "selected_user": mallory}}})
	e.ephemeralTo(alice, "they decide it now")
	e.waitFor("the note in the thread", func() bool {
		return slices.Contains(e.replies(p), "↪️ <@"+alice+"> handed this request to <@"+mallory+">, who may decide it now.")
	})
	e.waitFor("the hand-over on the message", func() bool {
		return strings.Contains(blocksText(e.message(p)), "handed this request to <@"+mallory+">")
	})

	e.click(alice, p, "Approve draft 1")
	e.ephemeralTo(alice, "You handed this request to <@"+mallory+">")
	e.click(mallory, p, "Approve draft 1")
	out := decode(t, e.resumed(p).Output)
	delegations, _ := out["delegations"].([]any)
	if out["decidedBy"] != mallory || len(delegations) != 1 || delegations[0].(map[string]any)["from"] != alice {
		t.Errorf("output = %v", out)
	}
	e.settled(p)

	id, err := e.stack.Slack.Slash(alice, channel, "/approvals", "history")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.stack.Slack.WaitHandled(e.ctx(), id); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the history", func() bool {
		for _, r := range e.stack.Slack.ResponsePosts() {
			if strings.Contains(string(r.Body), `Handed to \u003c@`+mallory) {
				return true
			}
		}
		return false
	})
}

// The App Home lists what its viewer (here through a user group) may
// decide, with buttons that decide from there.
func TestAppHomeEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2)
	p := e.request(nil)
	id, err := e.stack.Slack.OpenHome(carol, "home")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.stack.Slack.WaitAck(e.ctx(), id); err != nil {
		t.Fatal(err)
	}
	home := func(text string) {
		e.t.Helper()
		e.waitFor("carol's Home showing "+text, func() bool {
			v, ok := e.stack.Slack.Home(carol)
			return ok && strings.Contains(string(v.View), text)
		})
	}
	home(p.Response.ApprovalID)
	if _, err := e.stack.Slack.ClickHome(carol, "approve_draft_1", p.Response.ApprovalID); err != nil {
		t.Fatal(err)
	}
	out := decode(t, e.resumed(p).Output)
	if out["decidedBy"] != carol || out["draftIndex"] != 1.0 {
		t.Errorf("output = %v", out)
	}
	e.settled(p)
	home("Recently decided by you")
	home("Done: Approved draft 2")
}

// A request for a user ID is a direct message from the app, decided there.
func TestDirectMessageEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2)
	p := e.request(func(m map[string]any) { m["channel"] = alice })
	if p.Response.Channel != fakeslack.DMChannel(alice) {
		t.Fatalf("posted in %q, want the direct message with alice", p.Response.Channel)
	}
	a, err := e.stack.Service.Get(e.ctx(), p.Response.ApprovalID)
	if err != nil || a.Channel != p.Response.Channel {
		t.Fatalf("recorded channel %q (%v), want %q", a.Channel, err, p.Response.Channel)
	}
	e.click(alice, p, "Approve draft 1")
	if o := e.resumed(p); o.State != stepfunctionstest.StateSucceeded {
		t.Fatalf("outcome = %+v", o)
	}
	e.settled(p)
	e.waitFor("the reply in the direct message", func() bool { return len(e.replies(p)) == 1 })
}

// approve-or-escalate on the local engine, on a clock the test moves, with
// two bot replicas: each reminder and the escalation are posted once,
// mentioning who may still decide and the escalation group; the message
// shows every step; the onDeadline rejection reaches the execution before
// the Task's own timeout, which never fires.
func TestDeadlineLifecycleEndToEnd(t *testing.T) {
	t.Parallel()
	clock := sfnlocal.NewFakeClock(time.Now().UTC().Truncate(time.Second))
	filed := make(chan string, 1)
	e := newEnv(t, 2, func(o *devstack.Options) {
		o.Engine, o.EngineClock, o.Now = true, clock, clock.Now
		o.Functions = map[string]lambda.Handler{
			"draft-agent": func(context.Context, []byte) ([]byte, error) {
				return []byte(`{"drafts":["One.","Two."],"summary":"Two drafts."}`), nil
			},
			"publish": func(context.Context, []byte) ([]byte, error) { return []byte(`{}`), nil },
			"file-rejection": func(_ context.Context, payload []byte) ([]byte, error) {
				var in struct{ Reason string }
				_ = json.Unmarshal(payload, &in)
				filed <- in.Reason
				return []byte(`{"ticket":"REJ-1"}`), nil
			},
		}
	})
	raw, err := definitions.Load(definitions.ApproveOrEscalate)
	if err != nil {
		t.Fatal(err)
	}
	def, err := host.Substitute(raw, map[string]string{
		definitions.Channel: channel, definitions.Approvers: alice, definitions.EscalationApprovers: editors,
		definitions.NotifierFunctionArn: devstack.NotifierFunction, definitions.DraftAgentFunctionArn: "draft-agent",
		definitions.PublishFunctionArn: "publish", definitions.FileRejectionFunctionArn: "file-rejection",
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := e.ctx()
	machine, err := e.stack.CreateStateMachine(ctx, "approve-or-escalate", def)
	if err != nil {
		t.Fatal(err)
	}
	arn, err := e.stack.StartExecution(ctx, machine, "deadline", map[string]any{"topic": "Deadlines", "requestedBy": bob})
	if err != nil {
		t.Fatal(err)
	}
	request := e.requestWithButtons(channel)
	notes := func(prefix string) int {
		n := 0
		for _, m := range e.stack.Slack.Replies(channel, request.TS) {
			if strings.HasPrefix(m.Text, prefix) {
				n++
			}
		}
		return n
	}
	shows := func(text string) func() bool {
		return func() bool {
			m, _ := e.stack.Slack.Message(channel, request.TS)
			return strings.Contains(blocksText(m), text)
		}
	}
	start := clock.Now()
	advanceTo := func(d time.Duration) { clock.Advance(start.Add(d).Sub(clock.Now())) }

	// The first reminder and the escalation are both due at 50%: the
	// escalation comes first, so the reminder names the group too.
	reminder := "🔔 Reminder: <@" + alice + ">, <!subteam^" + editors + ">, this request still waits"
	advanceTo(12*time.Hour + time.Second)
	e.waitFor("the escalation", func() bool { return notes("⏫ Escalated: <!subteam^"+editors+">, nobody has decided") == 1 })
	e.waitFor("the first reminder", func() bool { return notes(reminder) == 1 })
	e.waitFor("both on the message", func() bool {
		return shows("🔔 Reminded who may still decide")() && shows("⏫ Escalated: <!subteam^"+editors+"> may decide too")()
	})

	advanceTo(21*time.Hour + 37*time.Minute) // 90%
	e.waitFor("the second reminder", func() bool { return notes(reminder) == 2 })

	advanceTo(24*time.Hour - workflow.OnDeadlineLead)
	select {
	case reason := <-filed:
		if !strings.Contains(reason, "before its deadline, so it was rejected") {
			t.Errorf("rejection filed with reason %q", reason)
		}
	case <-ctx.Done():
		t.Fatal("the onDeadline rejection never reached the workflow")
	}
	ex, err := e.stack.WaitExecution(ctx, arn)
	if err != nil || ex.Status != "SUCCEEDED" || !strings.Contains(ex.Output, `"outcome":"rejected"`) {
		t.Fatalf("execution = %s %s %s, %v", ex.Status, ex.Output, ex.Error, err)
	}
	e.waitFor("the deadline's outcome", func() bool {
		m, _ := e.stack.Slack.Message(channel, request.TS)
		return len(fakeslack.ButtonActions(m.Blocks)) == 0 && shows("⏰ *Rejected at the deadline*")()
	})
	e.waitFor("the reply", func() bool { return notes("Rejected at its deadline: nobody decided in time.") == 1 })
	if r, x := notes("🔔"), notes("⏫"); r != 2 || x != 1 {
		t.Errorf("%d reminders and %d escalations posted, want 2 and 1", r, x)
	}
	for _, ev := range mustHistory(t, e, arn) {
		if ev.Type == "TaskTimedOut" {
			t.Error("the Task timed out: the onDeadline decision came too late")
		}
	}
}

func mustHistory(t *testing.T, e *env, arn string) []sfnlocal.HistoryEvent {
	t.Helper()
	events, err := e.stack.History(e.ctx(), arn)
	if err != nil {
		t.Fatal(fmt.Errorf("history of %s: %w", arn, err))
	}
	return events
}
