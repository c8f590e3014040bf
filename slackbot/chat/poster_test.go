package chat

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

func TestPoster(t *testing.T) {
	fs, err := fakeslack.Start(fakeslack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fs.Close)
	p := NewPoster(slack.New(fs.BotToken(), slack.OptionAPIURL(fs.APIURL())))
	ctx := context.Background()

	a := workflowtest.WithDrafts(workflowtest.SampleApproval())
	a.Channel = "C1"
	a.ThreadTS = fs.PostMessage("C1", "context for the request")
	ch, ts, err := p.PostRequest(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := fs.Message(ch, ts)
	if !ok || m.ThreadTS != a.ThreadTS || len(fakeslack.ButtonActions(m.Blocks)) != 5 || len(fakeslack.MenuOptions(m.Blocks)) != 4 {
		t.Errorf("posted %s with %d buttons and %d menu options, want 5 and 4", m.Text, len(fakeslack.ButtonActions(m.Blocks)), len(fakeslack.MenuOptions(m.Blocks)))
	}
	if strings.Contains(string(m.Blocks)+m.Text, a.TaskToken.Reveal()) {
		t.Error("the task token was posted")
	}

	a.ThreadTS = "1.2"
	_, _, err = p.PostRequest(ctx, a)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != "thread_not_found" || apiErr.Hint == "" {
		t.Errorf("err = %v, want an APIError thread_not_found with a hint", err)
	}

	fs.FailMethod("chat.postMessage", 1, 500)
	a.ThreadTS = ""
	if _, _, err := p.PostRequest(ctx, a); err == nil || strings.Contains(err.Error(), fs.BotToken()) {
		t.Errorf("outage: err = %v", err)
	}
}

// A request for a user ID is a direct message: the conversation is opened
// and the message posted there, and its D… channel is what is recorded.
func TestPosterDirectMessage(t *testing.T) {
	fs, err := fakeslack.Start(fakeslack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fs.Close)
	p := NewPoster(slack.New(fs.BotToken(), slack.OptionAPIURL(fs.APIURL())))
	ctx := context.Background()

	a := workflowtest.SampleApproval()
	a.Channel = "U0ALICE"
	ch, ts, err := p.PostRequest(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if ch != fakeslack.DMChannel("U0ALICE") || !strings.HasPrefix(ch, "D") {
		t.Errorf("posted in %q, want the direct message %q", ch, fakeslack.DMChannel("U0ALICE"))
	}
	if m, ok := fs.Message(ch, ts); !ok || len(fakeslack.ButtonActions(m.Blocks)) == 0 {
		t.Errorf("no request message in the direct message: %+v", m)
	}
	if got := fs.Params("conversations.open"); len(got) != 1 || got[0].Get("users") != "U0ALICE" {
		t.Errorf("conversations.open calls = %v, want one for U0ALICE", got)
	}

	a.Channel = fs.BotUserID()
	_, _, err = p.PostRequest(ctx, a)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Method != "conversations.open" || apiErr.Code != "cannot_dm_bot" || apiErr.Hint == "" {
		t.Errorf("err = %v, want an APIError cannot_dm_bot from conversations.open with a hint", err)
	}
}

func TestAPIErrorHints(t *testing.T) {
	for _, code := range []string{"channel_not_found", "not_in_channel"} {
		err := NewAPIError("chat.postMessage", slack.SlackErrorResponse{Err: code})
		var e *APIError
		if !errors.As(err, &e) || e.Code != code || !strings.Contains(err.Error(), code) || e.Hint == "" {
			t.Errorf("%s: %v", code, err)
		}
	}
	if got := redact("dial ws://x/link/?ticket=abc&x=1 with xoxb-123-abc and xapp-1-A-2"); strings.Contains(got, "abc") || strings.Contains(got, "xapp-1") {
		t.Errorf("redact left a secret: %s", got)
	}
}

// The requester's notice is one line in their direct message with the
// app, linking the request; without a link when Slack gives none.
func TestPostRequesterNotice(t *testing.T) {
	fs, err := fakeslack.Start(fakeslack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fs.Close)
	p := NewPoster(slack.New(fs.BotToken(), slack.OptionAPIURL(fs.APIURL())))
	ctx := context.Background()
	a := workflowtest.SampleApproval()
	a.Channel = "C1"
	ch, ts, err := p.PostRequest(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	a.Channel, a.MessageTS = ch, ts
	if err := p.PostRequesterNotice(ctx, a); err == nil {
		t.Error("a pending request's notice was sent")
	}
	decided := workflowtest.DecidedAs(a, workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, Text: "Not now"})
	if err := p.PostRequesterNotice(ctx, decided); err != nil {
		t.Fatal(err)
	}
	dm := fs.Messages(fakeslack.DMChannel(a.RequestedBy))
	if len(dm) != 1 || !strings.HasPrefix(dm[0].Text, "📬 Your request *Publish the post for 2026-11-29*: Rejected by <@U0AAA>: Not now <http") ||
		!strings.HasSuffix(dm[0].Text, "|Open the request>") {
		t.Errorf("direct messages = %+v", dm)
	}
	ja := decided
	ja.Locale = workflow.LocaleJapanese
	ja.MessageTS = "" // no message: no link
	if err := p.PostRequesterNotice(ctx, ja); err != nil {
		t.Fatal(err)
	}
	if dm := fs.Messages(fakeslack.DMChannel(a.RequestedBy)); len(dm) != 2 || dm[1].Text != "📬 あなたの依頼 *Publish the post for 2026-11-29*: <@U0AAA> が却下しました: Not now" {
		t.Errorf("Japanese notice = %q", dm[len(dm)-1].Text)
	}
}
