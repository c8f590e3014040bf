package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// The README's first command: the demo must keep working from a clean
// machine's point of view (it starts its own DynamoDB Local).
func TestDemoPlaysEveryOutcome(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errs bytes.Buffer
	if err := run(ctx, nil, &out, &errs); err != nil {
		t.Fatalf("demo: %v\n%s\n%s", err, out.String(), errs.String())
	}
	for _, want := range []string{
		"[Approve draft 1] [Approve draft 2] [Reject] [Request changes] [Skip]",
		"only bob sees: You requested this approval",
		"only mallory sees: You are not one of the approvers",
		`"selectedDraft": "Pause any workflow until a person says yes."`,
		`SendTaskFailure: error "Rejected", cause "Fix the typo in row 4 first."`,
		`"feedback": "Warmer\nThank them by name."`,
		"Expired",
		"1 approval waits for your decision",
		"Done: 2 executions resumed with SendTaskSuccess, 1 with SendTaskFailure, 1 timed out; 3 resumes in all",
		"Publish: Step Functions callbacks (round 2 of 3)",
		"execution SUCCEEDED with output",
		`"text": "Let any workflow wait for a yes from a person."`,
		"Defaults → Start → Draft → Approve → WhatWasDecided → CountRound → RoundsLeft → Revise → Approve → WhatWasDecided → Publish → Published",
		"⏹️ *Cancelled*: the execution was aborted at",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out.String())
	}
}

func TestSmallLoadRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, errs bytes.Buffer
	if err := run(ctx, []string{"-load", "20"}, &out, &errs); err != nil {
		t.Fatalf("load: %v\n%s\n%s", err, out.String(), errs.String())
	}
	if !strings.Contains(out.String(), "resumes                         20 (want 20)") {
		t.Errorf("load report:\n%s", out.String())
	}
}
