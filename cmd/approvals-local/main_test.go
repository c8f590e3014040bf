package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// make demo: the scripted demo must keep working from a clean
// machine's point of view (it starts its own DynamoDB Local).
func TestDemoPlaysEveryOutcome(t *testing.T) {
	t.Parallel()
	var out, errs bytes.Buffer
	if err := run(testContext(t), []string{"-demo"}, os.Getenv, &out, &errs); err != nil {
		t.Fatalf("demo: %v\n%s\n%s", err, out.String(), errs.String())
	}
	for _, want := range []string{
		"[Approve draft 1] [Approve draft 2] [Reject] [For non-engineers] [More detail] [▾ Request changes…: Shorter · Other changes…] [⋯ Approve with comment · Skip · Hand over · Withdraw request]",
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

// The load run works end to end, and reports the bots' DynamoDB calls
// per decision from their metrics, and then the steady phase's latencies.
func TestSmallLoadRun(t *testing.T) {
	t.Parallel()
	var out, errs bytes.Buffer
	if err := run(testContext(t), []string{"-load", "20"}, os.Getenv, &out, &errs); err != nil {
		t.Fatalf("load: %v\n%s\n%s", err, out.String(), errs.String())
	}
	// How the calls fall between lone and grouped ones depends on timing;
	// every decision's message-updated write is a transaction.
	for _, want := range []string{`resumes {25}20 \(want 20\)`, `DynamoDB calls per decision +\d+\.\d\d: .*TransactWriteItems 1\.\d\d`,
		`At a steady pace: 10 clicks, one every 50ms`, `\n  ack latency +p50 [\d.]+m?s  p99 [\d.]+m?s  max [\d.]+m?s\n  click to execution resumed +p50 [\d.]+m?s`} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("load report without %q:\n%s", want, out.String())
		}
	}
}

// testContext ends shortly before the test binary's deadline (go test
// -timeout), so a run that never ends fails with its own message. The
// test guesses no duration: on a busy machine the demo takes many times
// what it takes on an idle one.
func testContext(t *testing.T) context.Context {
	t.Helper()
	deadline, ok := t.Deadline()
	if !ok {
		return t.Context()
	}
	ctx, cancel := context.WithDeadline(t.Context(), deadline.Add(-time.Until(deadline)/20))
	t.Cleanup(cancel)
	return ctx
}
