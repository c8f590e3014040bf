package blocks

import (
	"fmt"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

func TestPendingMessageGolden(t *testing.T) {
	now := created.Add(3 * time.Hour)
	a := workflowtest.SampleApproval()
	b := workflowtest.SampleApproval()
	b.ID, b.Title, b.Deadline, b.ThreadTS, b.CreatedAt = "ap_two", "Second | request", time.Time{}, "1699999999.000001", created.Add(-50*time.Hour)
	golden(t, "pending_none", PendingMessage("", nil, now, "https://acme.slack.com/"))
	golden(t, "pending_two", PendingMessage("", []workflow.Approval{b, a}, now, "https://acme.slack.com/"))

	var many []workflow.Approval
	for i := range 23 {
		x := workflowtest.SampleApproval()
		x.ID, x.Title = fmt.Sprintf("ap_%02d", i), fmt.Sprintf("Request %d", i)
		many = append(many, x)
	}
	golden(t, "pending_many", PendingMessage("", many, now, "https://acme.slack.com/"))
	golden(t, "pending_nolinks", PendingMessage("", []workflow.Approval{b, a}, now, ""))
	golden(t, "pending_broadcasts", PendingMessage("", []workflow.Approval{withBroadcasts(a)}, now, "https://acme.slack.com/"))
	golden(t, "help", HelpMessage("", "/approvals"))
}

func TestPermalink(t *testing.T) {
	tests := []struct{ base, channel, ts, thread, want string }{
		{"https://acme.slack.com/", "C1", "1700000000.000100", "", "https://acme.slack.com/archives/C1/p1700000000000100"},
		{"http://127.0.0.1:5/", "C1", "1700000000.000100", "1699.1", "http://127.0.0.1:5/archives/C1/p1700000000000100?thread_ts=1699.1&cid=C1"},
		{"https://acme.slack.com", "C1", "1700000000.000100", "1700000000.000100", "https://acme.slack.com/archives/C1/p1700000000000100"},
	}
	for _, tt := range tests {
		if got := Permalink(tt.base, tt.channel, tt.ts, tt.thread); got != tt.want {
			t.Errorf("Permalink(%q, %q, %q, %q) = %q, want %q", tt.base, tt.channel, tt.ts, tt.thread, got, tt.want)
		}
	}
}
