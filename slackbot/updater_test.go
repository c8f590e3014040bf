package slackbot

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/slackbot/pacing"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

func TestUpdaterDedupes(t *testing.T) {
	u := newUpdater(nil, nil, DefaultConfig(), zap.NewNop())
	a := workflowtest.DecidedAs(workflowtest.SampleApproval(), workflow.Decision{Action: workflow.ActionApprove, DraftIndex: -1})

	u.enqueue(workflowtest.SampleApproval(), true) // pending: nothing to show yet
	synced := a
	synced.MessageSynced = true
	u.enqueue(synced, false)
	unposted := a
	unposted.MessageTS = ""
	u.enqueue(unposted, true)
	if len(u.ready)+len(u.replyQueue) != 0 {
		t.Fatalf("queued %v %v; want nothing", u.ready, u.replyQueue)
	}

	older := a
	older.Summary = "older"
	u.enqueue(older, true)
	u.enqueue(a, false)
	if len(u.ready) != 1 {
		t.Fatalf("queued %v; want one job", u.ready)
	}
	j := u.jobs[a.ID]
	if !j.reply || j.a.Summary != a.Summary {
		t.Errorf("job = %+v; want the newest state and the reply kept", j)
	}

	j.state = jobBusy
	u.enqueue(a, true)
	if len(u.ready) != 1 {
		t.Errorf("a job being processed was queued again")
	}
}

// Another replica's sweeper may update the message while this replica
// still records the decision: the message needs no update, but the reply
// is still this replica's to post.
func TestUpdaterRepliesWhenTheMessageWasUpdatedElsewhere(t *testing.T) {
	u := newUpdater(nil, nil, DefaultConfig(), zap.NewNop())
	a := workflowtest.DecidedAs(workflowtest.SampleApproval(), workflow.Decision{Action: workflow.ActionApprove, DraftIndex: -1})
	a.MessageSynced = true
	u.enqueue(a, true)
	if len(u.ready) != 0 || len(u.replyQueue) != 1 || u.replyQueue[0] != a.ID {
		t.Fatalf("updates %v, replies %v; want the reply only", u.ready, u.replyQueue)
	}
}

// A correction (a late progress update may be what the message shows)
// updates the message though the record says it is synced: a new job is
// forced, a job waiting for its reply goes back to the update, and a job
// being processed is updated once more when it is done.
func TestUpdaterCorrects(t *testing.T) {
	t.Parallel()
	a := workflowtest.DecidedAs(workflowtest.SampleApproval(), workflow.Decision{Action: workflow.ActionApprove, DraftIndex: -1})
	a.MessageSynced = true

	u := newUpdater(nil, nil, DefaultConfig(), zap.NewNop())
	u.correct(workflowtest.SampleApproval()) // pending: nothing to correct
	u.correct(a)
	if len(u.ready) != 1 || !u.jobs[a.ID].force {
		t.Fatalf("ready %v, job %+v; want one forced update", u.ready, u.jobs[a.ID])
	}

	u = newUpdater(nil, nil, DefaultConfig(), zap.NewNop())
	u.enqueue(a, true) // synced: only the reply is due
	u.correct(a)
	if len(u.ready) != 1 || len(u.replyQueue) != 0 || u.jobs[a.ID].updated || !u.jobs[a.ID].reply {
		t.Fatalf("ready %v, replies %v, job %+v; want the update first, the reply kept", u.ready, u.replyQueue, u.jobs[a.ID])
	}

	u = newUpdater(nil, nil, DefaultConfig(), zap.NewNop())
	unsynced := a
	unsynced.MessageSynced = false
	u.enqueue(unsynced, false)
	j := u.jobs[a.ID]
	u.ready, j.state = nil, jobBusy
	u.correct(a)
	if len(u.ready) != 0 {
		t.Fatalf("a job being processed was queued again: %v", u.ready)
	}
	j.updated = true
	u.done(j)
	if len(u.ready) != 1 || !j.force || j.updated {
		t.Errorf("ready %v, job %+v; want the job updating once more, forced", u.ready, j)
	}
}

// A thread note still waiting for its channel's pacing when the updater's
// context ends is not posted, and is counted in the one warning.
func TestUpdaterCountsTheNotesItLeft(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cfg := testConfig()
	cfg.ReplyRate = pacing.Rate{Events: 1, Per: time.Hour, Burst: 1}
	first, second := h.request(workflow.Request{}), h.request(workflow.Request{})
	u := newUpdater(h.api(nil), h.svc, cfg, h.log)
	u.notify(first, "first note")
	u.notify(second, "second note")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); u.run(ctx) }()
	h.waitFor("the first note posted, the second taken", func() bool {
		u.mu.Lock()
		defer u.mu.Unlock()
		return len(u.notes) == 0 && len(h.slack.Replies(first.Channel, first.MessageTS)) == 1
	})
	cancel()
	<-done

	if n := len(h.slack.Replies(second.Channel, second.MessageTS)); n != 0 {
		t.Errorf("%d notes posted for the second approval, want none", n)
	}
	said := h.logs.FilterMessageSnippet("stopped before this Slack work was done").AllUntimed()
	if len(said) != 1 {
		t.Fatalf("%d warnings about work left, want 1", len(said))
	}
	if got := said[0].ContextMap()["thread_notes"]; got != int64(1) {
		t.Errorf("thread_notes = %v, want 1", got)
	}
}
