package slackbot

import (
	"testing"

	"go.uber.org/zap"

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
