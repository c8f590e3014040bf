package chat

import (
	"context"
	"errors"
	"testing"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// The events Lambda replies in the request's thread: under the request, or
// in the thread the request was posted in.
func TestPosterPostReply(t *testing.T) {
	fs, err := fakeslack.Start(fakeslack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fs.Close)
	p := NewPoster(slack.New(fs.BotToken(), slack.OptionAPIURL(fs.APIURL())))
	ctx := context.Background()
	root := fs.PostMessage("C1", "context for the request")
	for _, thread := range []string{"", root} {
		a := workflowtest.SampleApproval()
		a.Channel, a.ThreadTS = "C1", thread
		ch, ts, err := p.PostRequest(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		a.Channel, a.MessageTS = ch, ts
		if err := p.PostReply(ctx, a); err == nil {
			t.Error("PostReply of a pending approval succeeded")
		}
		a = workflowtest.CancelledAs(a, workflow.Ended(workflow.Execution{Status: workflow.ExecutionAborted, StoppedAt: workflowtest.SampleStopped}))
		if err := p.PostReply(ctx, a); err != nil {
			t.Fatal(err)
		}
		var replies []fakeslack.Message
		for _, m := range fs.Messages("C1") {
			if m.ThreadTS == a.ThreadRoot() && m.TS != a.ThreadRoot() && m.TS != ts {
				replies = append(replies, m)
			}
		}
		if len(replies) != 1 || replies[0].Text != blocks.ReplyText(a) {
			t.Errorf("thread %q: replies %+v, want one saying %q", thread, replies, blocks.ReplyText(a))
		}
	}
	a := workflowtest.CancelledAs(workflowtest.SampleApproval(), workflow.Cancellation{Reason: "x"})
	a.Channel = "C0GONE"
	fs.RefuseChannel("C0GONE", "not_in_channel")
	var apiErr *APIError
	if err := p.PostReply(ctx, a); !errors.As(err, &apiErr) || apiErr.Code != "not_in_channel" {
		t.Errorf("PostReply in a channel the app left = %v, want not_in_channel", err)
	}
}
