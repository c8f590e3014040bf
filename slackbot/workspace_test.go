package slackbot

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/workflow"
)

// pendingAnswer runs /approvals pending for user and returns the answer's
// texts.
func (h *harness) pendingAnswer(user string) string {
	h.t.Helper()
	before := len(h.slack.ResponsePosts())
	if _, err := h.slack.Slash(user, channel, "/approvals", "pending"); err != nil {
		h.t.Fatal(err)
	}
	h.waitFor("answer", func() bool { return len(h.slack.ResponsePosts()) > before })
	var body struct {
		Blocks []json.RawMessage `json:"blocks"`
	}
	if err := json.Unmarshal(h.slack.ResponsePosts()[before].Body, &body); err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, b := range body.Blocks {
		out = append(out, texts(h.t, string(b))...)
	}
	return strings.Join(out, "\n")
}

func TestPendingLinksUseTheWorkspaceURL(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{Approvers: []string{approver}})
	root := h.slack.PostMessage(channel, "thread")
	b := h.request(workflow.Request{Approvers: []string{approver}, ThreadTS: root})

	got := h.pendingAnswer(approver)
	for _, want := range []string{
		"<" + h.slack.URL() + "archives/" + channel + "/p" + strings.Replace(a.MessageTS, ".", "", 1) + "|",
		"<" + h.slack.URL() + "archives/" + channel + "/p" + strings.Replace(b.MessageTS, ".", "", 1) + "?thread_ts=" + root + "&cid=" + channel + "|",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no link %s in %q", want, got)
		}
	}
	h.pendingAnswer(approver2)
	if n := h.slack.Calls("auth.test"); n != 1 {
		t.Errorf("auth.test called %d times for two commands, want once at start", n)
	}
}

func TestPendingWhileSlackCannotSayWhichWorkspace(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.slack.FailMethod("auth.test", -1, 503)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{Approvers: []string{approver}})
	h.waitFor("retries", func() bool { return h.slack.Calls("auth.test") >= 3 })

	env, err := h.slack.Slash(approver, channel, "/approvals", "pending")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.WaitAck(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	h.waitFor("answer", func() bool { return len(h.slack.ResponsePosts()) == 1 })
	got := strings.Join(texts(t, string(h.slack.ResponsePosts()[0].Body)), "\n")
	if !strings.Contains(got, a.Title) || strings.Contains(got, "/archives/") || !strings.Contains(got, "Links to the messages are unavailable") {
		t.Errorf("answer during the outage = %q, want the title, no link and a note", got)
	}

	h.slack.Heal("auth.test")
	if got := h.pendingAnswer(approver); !strings.Contains(got, "<"+h.slack.URL()+"archives/"+channel+"/p") {
		t.Errorf("answer after the outage = %q, want a link", got)
	}
}

func TestWorkspaceURL(t *testing.T) {
	for _, s := range []string{"https://acme.slack.com/", "http://127.0.0.1:5/", "https://acme.enterprise.slack.com/"} {
		if got, err := workspaceURL(s); err != nil || got != s {
			t.Errorf("workspaceURL(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "acme.slack.com", "javascript:alert(1)", "https://a.slack.com/|x", "https:///"} {
		if _, err := workspaceURL(s); err == nil {
			t.Errorf("workspaceURL(%q) accepted", s)
		}
	}
}
