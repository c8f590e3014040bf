package slackbot

import (
	"context"
	"strings"
	"testing"

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
	ts, err := h.api(nil).PostEphemeral(channel, approver, RequestMessage(a).options()...)
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
			if e == textNotOnRequest {
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
	tests := []struct {
		metadata string
		wantID   string
		wantOn   workflow.MessageRef
	}{
		{modalMetadata("ap_1", on), "ap_1", on},
		{modalMetadata("ap_1", workflow.MessageRef{}), "ap_1", workflow.MessageRef{}},
		{"ap_1", "ap_1", workflow.MessageRef{}}, // a modal opened by an older version
		{"ap_1 C0123", "", workflow.MessageRef{}},
		{"", "", workflow.MessageRef{}},
	}
	for _, tt := range tests {
		id, got := readModalMetadata(tt.metadata)
		if id != tt.wantID || got != tt.wantOn {
			t.Errorf("readModalMetadata(%q) = %q, %+v; want %q, %+v", tt.metadata, id, got, tt.wantID, tt.wantOn)
		}
	}
	if len(modalMetadata(workflow.NewApprovalID(), on)) > 3000 {
		t.Error("metadata over Slack's 3000 characters")
	}
}
