package slackbot

import (
	"context"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/workflow"
)

// A button decides only the approval of the message it is on: the same
// buttons on a copy of the request (a post made twice) change nothing.
func TestButtonOnAnotherMessageChangesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{RevisionPresets: []string{"Shorter"}})
	_, copyTS, err := h.poster.PostRequest(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	onCopy := a
	onCopy.MessageTS = copyTS

	for _, action := range []string{"approve", "reject", "revise"} {
		before := len(h.ephemeralsTo(approver))
		h.click(approver, onCopy, action)
		h.waitFor("the private answer to "+action, func() bool { return len(h.ephemeralsTo(approver)) > before })
		if got := h.ephemeralsTo(approver)[before]; !strings.Contains(got, "not on the request message") {
			t.Errorf("%s on the copy answered %q", action, got)
		}
	}
	if n := len(h.slack.Views(approver)); n != 0 {
		t.Errorf("%d modals opened from the copy, want none", n)
	}
	if got := h.get(a); got.Status != workflow.StatusPending || got.MessageTS != a.MessageTS || !h.task(a).Open {
		t.Fatalf("after clicks on the copy: status %s, message %s, task open %v; want nothing changed", got.Status, got.MessageTS, h.task(a).Open)
	}

	h.click(approver, a, "approve") // the real message still decides
	h.waitFor("the decision on the real message", func() bool { return h.outcomeShown(a, "Approved") })
	if m, _ := h.slack.Message(channel, copyTS); m.Updates != 0 {
		t.Error("the copy was updated as if it were the request")
	}
}

// A request posted as a reply in a thread: the click's container names the
// reply itself (message_ts), so it decides.
func TestButtonOnARequestInAThreadDecides(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	root := h.slack.PostMessage(channel, "release train")
	a := h.request(workflow.Request{ThreadTS: root})
	h.click(approver, a, "approve")
	h.waitFor("the decision", func() bool { return h.outcomeShown(a, "Approved") && h.get(a).MessageSynced })
	if h.task(a).Results != 1 {
		t.Errorf("the threaded request was resumed %d times, want once", h.task(a).Results)
	}
}

// Request buttons on an ephemeral message (none exist today) decide
// nothing: only a channel message is a request.
func TestButtonOnAnEphemeralMessageChangesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{})
	ts, err := h.api(nil).PostEphemeral(channel, approver, blocks.RequestMessage(a).Options()...)
	if err != nil {
		t.Fatal(err)
	}
	env, err := h.slack.ClickEphemeral(approver, channel, ts, "approve", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.WaitAck(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the private answer", func() bool {
		for _, e := range h.ephemeralsTo(approver) {
			if e == blocks.T("", blocks.KNotOnRequest) {
				return true
			}
		}
		return false
	})
	if got := h.get(a); got.Status != workflow.StatusPending || !h.task(a).Open {
		t.Errorf("a click on an ephemeral copy changed the approval to %s", got.Status)
	}
}

func TestModalMetadataCarriesTheMessage(t *testing.T) {
	on := workflow.MessageRef{Channel: "C0123", TS: "1700000000.000100"}
	none := modalRef{draft: workflow.NoDraft}
	tests := []struct {
		metadata string
		want     modalRef
	}{
		{modalRef{id: "ap_1", on: on, draft: workflow.NoDraft}.String(), modalRef{id: "ap_1", on: on, draft: workflow.NoDraft}},
		{modalRef{id: "ap_1", draft: workflow.NoDraft}.String(), modalRef{id: "ap_1", draft: workflow.NoDraft}},
		{modalRef{id: "ap_1", home: true, draft: 2, need: true}.String(), modalRef{id: "ap_1", home: true, draft: 2, need: true}},
		{modalRef{id: "ap_1", on: on, draft: 0, need: true}.String(), modalRef{id: "ap_1", on: on, draft: 0, need: true}},
		{modalRef{id: "ap_1", on: on, draft: workflow.NoDraft, locale: "ja", action: "preset_3"}.String(),
			modalRef{id: "ap_1", on: on, draft: workflow.NoDraft, locale: "ja", action: "preset_3"}},
		{"ap_1", modalRef{id: "ap_1", draft: workflow.NoDraft}}, // a modal opened by an older version
		{"ap_1 C0123 1700000000.000100", modalRef{id: "ap_1", on: on, draft: workflow.NoDraft}},
		{"ap_1 C0123", none},
		{"ap_1 draft=9", none},
		{"ap_1 draft=x", none},
		{"", none},
	}
	for _, tt := range tests {
		if got := readModalRef(tt.metadata); got != tt.want {
			t.Errorf("readModalRef(%q) = %+v; want %+v", tt.metadata, got, tt.want)
		}
	}
	if len(modalRef{id: workflow.NewApprovalID(), on: on, home: true, draft: 4, need: true}.String()) > 3000 {
		t.Error("metadata over Slack's 3000 characters")
	}
}
