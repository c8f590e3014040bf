package slackbot

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// The sweeper lists approvals without their body (workflow.Approval.Listed);
// the message it fixes must still show the whole request.
func TestSweeperRendersTheWholeMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{
		Summary: "The summary the sweeper must keep.",
		Fields:  workflow.Fields{{Label: "Theme", Value: "kept field"}},
		Drafts:  []string{"first kept draft", "second kept draft"},
	})
	h.slack.FailMethod("chat.update", -1, 503)
	h.click(approver, a, "approve_draft_1")
	h.waitFor("resumed and the decision's updates given up", func() bool {
		return !h.task(a).Open && h.slack.Calls("chat.update") >= testConfig().UpdateAttempts
	})
	h.slack.Heal("chat.update")
	h.waitFor("message fixed by the sweeper", func() bool { return h.outcomeShown(a, "Approved draft 2") })
	blocks := string(h.message(a).Blocks)
	for _, want := range []string{"The summary the sweeper must keep.", "kept field", "first kept draft", "second kept draft"} {
		if !strings.Contains(blocks, want) {
			t.Errorf("the swept message lost %q: %s", want, blocks)
		}
	}
}

// decidedIn requests and decides an approval in channel while no bot runs,
// leaving its message for the sweeper.
func (h *harness) decidedIn(ch string) workflow.Approval {
	h.t.Helper()
	a := h.request(workflow.Request{Channel: ch})
	if _, err := h.svc.Decide(context.Background(), a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: workflow.NoDraft, DecidedBy: approver}); err != nil {
		h.t.Fatal(err)
	}
	return a
}

// 150 messages the bot can no longer update (it was removed from their
// channel) do not keep a newer message from being updated by the next
// sweep: each failing record backs off on its own.
func TestSweeperIsNotHeldBackByMessagesItCannotFix(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.svc.MessageRetry = workflow.MessageRetry{Base: time.Hour, Max: time.Hour, Attempts: 10}
	const gone = "C0GONE"
	var failing []workflow.Approval
	for range sweepBatch + 50 {
		failing = append(failing, h.decidedIn(gone))
	}
	newer := h.decidedIn(channel)
	h.slack.RefuseChannel(gone, "not_in_channel")
	attempted := func() int {
		n := 0
		for _, a := range failing {
			if h.get(a).MessageAttempts > 0 {
				n++
			}
		}
		return n
	}

	cfg := testConfig()
	cfg.SweepInterval = time.Hour // one sweep at start; the test runs the next
	rb := h.startBot(cfg, nil)
	h.waitFor("the first sweep's updates tried", func() bool { return attempted() == sweepBatch })
	if h.message(newer).Updates != 0 {
		t.Fatal("the first sweep reached past its batch") // the premise of the test
	}
	rb.bot.sweepOnce(context.Background())
	h.waitFor("the newer message updated by the next sweep", func() bool { return h.outcomeShown(newer, "Approved") })
	h.waitFor("every failing message tried", func() bool { return attempted() == len(failing) })
	if got, want := h.slack.Calls("chat.update"), len(failing)+1; got != want {
		t.Errorf("chat.update calls = %d, want %d: each failing message once, then backed off", got, want)
	}
	for _, a := range failing {
		if got := h.get(a); got.MessageAttempts != 1 || got.MessageRetryAt.Before(got.ClosedAt.Add(time.Hour)) {
			t.Fatalf("%s: attempts %d, retry at %v; want 1 and an hour after the failure", a.ID, got.MessageAttempts, got.MessageRetryAt)
		}
	}
}

// A message that keeps failing is given up after MessageRetry.Attempts
// tries, with exactly one warning, and leaves the queue.
func TestSweeperGivesUpOnAMessageWithOneWarning(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.svc.MessageRetry = workflow.MessageRetry{Base: time.Millisecond, Max: 5 * time.Millisecond, Attempts: 3}
	const gone = "C0GONE"
	a := h.decidedIn(gone)
	h.slack.RefuseChannel(gone, "not_in_channel")
	h.startBot(testConfig(), nil)
	h.waitFor("given up", func() bool { return h.get(a).MessageGaveUp })
	later := h.decidedIn(channel) // updated by a sweep after the give-up
	h.waitFor("a later sweep", func() bool { return h.outcomeShown(later, "Approved") })

	if got := h.get(a); got.MessageAttempts != 3 || got.Queue() != "" || got.MessageSynced {
		t.Errorf("given up: attempts %d, queue %q, synced %v; want 3, off the queue, not synced", got.MessageAttempts, got.Queue(), got.MessageSynced)
	}
	if got := h.slack.Calls("chat.update"); got != 3+1 {
		t.Errorf("chat.update calls = %d, want 3 for the failing message and 1 for the later one", got)
	}
	var warnings []string
	alerts := 0
	for _, e := range h.logs.All() {
		if e.Level >= zapcore.WarnLevel && e.ContextMap()["approval_id"] == a.ID {
			warnings = append(warnings, e.Message)
			if e.ContextMap()["alert"] == alertMessageGaveUp {
				alerts++
			}
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "giving up") {
		t.Errorf("warnings about %s = %q, want exactly the one that gives up", a.ID, warnings)
	}
	if alerts != 1 {
		t.Errorf("the give-up warning carries alert=%s %d times, want once (the alarm counts it)", alertMessageGaveUp, alerts)
	}
}

// The sweeper is the safety net for a lost status change event: a request
// whose execution ended is closed by the sweep, its message updated in
// place with a reply in its thread, and a click on it is answered
// privately with the reason.
func TestSweeperClosesRequestsWhoseExecutionEnded(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ex := workflowtest.NewExecutions()
	h.svc.Executions = ex
	h.svc.ExecutionChecks = workflow.ExecutionChecks{PerRun: 5, Every: time.Minute}
	aborted := h.request(workflow.Request{})
	timedOut := h.request(workflow.Request{})
	running := h.request(workflow.Request{})
	stopped := h.now().Add(-time.Minute).Truncate(time.Second)
	ex.End(aborted.ExecutionARN, workflow.ExecutionAborted, stopped)
	h.startBot(testConfig(), nil)

	h.waitFor("the aborted execution's request closed", func() bool { return h.outcomeShown(aborted, "the execution was aborted at") })
	h.waitFor("the reply in its thread", func() bool {
		for _, m := range h.slack.Messages(channel) {
			if m.ThreadTS == aborted.MessageTS && strings.HasPrefix(m.Text, "Cancelled: the execution was aborted at") {
				return true
			}
		}
		return false
	})
	if got := h.get(aborted); got.Status != workflow.StatusCancelled || !got.MessageSynced {
		t.Errorf("aborted request: %s, synced %v; want cancelled and synced", got.Status, got.MessageSynced)
	}

	// A click that reaches a closed request before its message changed.
	h.slack.FailMethod("chat.update", -1, 503)
	ex.End(timedOut.ExecutionARN, workflow.ExecutionTimedOut, stopped)
	h.clock.Add(int64(time.Minute)) // its last check is a minute old
	h.waitFor("the timed-out execution's request closed", func() bool { return h.get(timedOut).Status == workflow.StatusCancelled })
	h.click(approver, timedOut, "approve")
	h.waitFor("the private answer", func() bool {
		for _, text := range h.ephemeralsTo(approver) {
			if strings.Contains(text, "This request was cancelled because the execution timed out at") {
				return true
			}
		}
		return false
	})
	h.slack.Heal("chat.update")
	h.waitFor("its message updated", func() bool { return h.outcomeShown(timedOut, "the execution timed out at") })

	if got := h.get(running); got.Status != workflow.StatusPending || h.message(running).Updates != 0 {
		t.Errorf("the running execution's request is %s with %d updates; want it untouched", got.Status, h.message(running).Updates)
	}
	if got := h.task(timedOut); got.Results != 0 {
		t.Error("the click on the closed request resumed its task")
	}
	if calls := ex.Calls(); calls[aborted.ExecutionARN] != 1 {
		t.Errorf("DescribeExecution calls = %v; want one for the ended execution", calls)
	}
}
