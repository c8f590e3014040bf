package workflowtest

import (
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// The instants of the sample approval: when it was requested, decided
// (DecidedAs, CancelledAs), its deadline, and when its execution stopped.
var (
	SampleCreated  = time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	SampleDecided  = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	SampleDeadline = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	SampleStopped  = time.Date(2026, 11, 29, 9, 30, 0, 0, time.UTC)
)

// SampleApproval is a pending approval with a title, summary, fields, a
// user and a group as approvers, a requester and a deadline, posted in
// C0123, for tests of what people see (its golden files depend on every
// value).
func SampleApproval() workflow.Approval {
	return workflow.Approval{
		ID:           "ap_sample",
		TaskToken:    "secret-task-token",
		ExecutionARN: "arn:aws:states:eu-west-1:123456789012:execution:publish:run-1",
		Channel:      "C0123",
		MessageTS:    "1700000000.000100",
		Approvers:    []string{"U0AAA", "S0GRP"},
		RequestedBy:  "U0REQ",
		Title:        "Publish the post for 2026-11-29",
		Summary:      "*Weekly* post about <https://example.com|Step Functions>",
		Fields:       []workflow.Field{{Label: "Theme", Value: "Step Functions"}, {Label: "Words <&>", Value: "1200"}},
		CreatedAt:    SampleCreated,
		Deadline:     SampleDeadline,
		Status:       workflow.StatusPending,
	}
}

// WithDrafts is a with two drafts (the first one holding a broadcast),
// two revision presets and Skip allowed.
func WithDrafts(a workflow.Approval) workflow.Approval {
	a.Drafts = []string{"First draft <!channel>", "Second draft"}
	a.RevisionPresets = []string{"Shorter", "More detail"}
	a.AllowSkip = true
	return a
}

// DecidedAs is a decided by U0AAA at SampleDecided with d.
func DecidedAs(a workflow.Approval, d workflow.Decision) workflow.Approval {
	d.DecidedBy, d.DecidedAt = "U0AAA", SampleDecided
	a.Status, a.Decision, a.ClosedAt = workflow.StatusDecided, &d, SampleDecided
	return a
}

// CancelledAs is a cancelled at SampleDecided with c.
func CancelledAs(a workflow.Approval, c workflow.Cancellation) workflow.Approval {
	a.Cancellation = &c
	a.Close(workflow.StatusCancelled, SampleDecided)
	return a
}
