package main

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sfnapprovals/approvals/lambdas/archive"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
)

func flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// A restart with the same -data keeps the approvals and the stand-in's
// messages, ephemeral ones and edits included. The executions were in
// memory: the request whose execution is gone is closed, its message
// saying why without buttons; the decided one keeps its outcome; and the
// product goes on working on the restored messages.
func TestRestartKeepsApprovalsAndMessages(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	data := t.TempDir()
	input := func(topic string) map[string]any { return map[string]any{"topic": topic, "requestedBy": bob} }

	first := startTest(ctx, t, testConfig(t, data), os.Getenv)
	open := first.execute(ctx, t, "publish-with-approval", input("Restarts"))
	waiting := request(ctx, t, first.slack, standInChannel)
	click(ctx, t, first.slack, mallory, waiting, "Approve draft 1")
	if err := first.slack.WaitFor(ctx, func() bool { return len(first.slack.Ephemerals(mallory)) > 0 }); err != nil {
		t.Fatalf("mallory was not told she may not decide: %v", err)
	}
	decided := first.execute(ctx, t, "publish-with-approval", input("Durability"))
	approved := request(ctx, t, first.slack, standInChannel, waiting)
	click(ctx, t, first.slack, alice, approved, "Approve draft 2")
	if x := first.ended(ctx, t, decided); x.Status != "SUCCEEDED" {
		t.Fatalf("the approved execution ended %s: %s %s", x.Status, x.Error, x.Cause)
	}
	approvedFinal := settled(ctx, t, first.slack, approved)
	ephemerals := first.slack.Ephemerals(mallory)
	before := first.slack.Messages(standInChannel)
	pid := first.ddb.PID()
	first.stop()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("DynamoDB Local (pid %d) is still running after the stop: %v", pid, err)
	}

	second := startTest(ctx, t, testConfig(t, data), os.Getenv)
	if second.closedAtStart != 1 || !strings.Contains(second.out.String(), "Closed 1 open request whose execution ended with the last run.") {
		t.Errorf("closed %d requests at start; banner:\n%s", second.closedAtStart, second.out)
	}
	openID, decidedID := button(t, waiting, "Approve draft 1").Value, button(t, approved, "Approve draft 1").Value
	a, err := second.service.Get(ctx, openID)
	if err != nil || a.Status != workflow.StatusCancelled || a.Cancellation == nil || a.Cancellation.Reason != reasonRestarted || a.ExecutionARN != open {
		t.Errorf("the open request after the restart: %+v %+v, %v; want cancelled: %s", a.Status, a.Cancellation, err, reasonRestarted)
	}
	if d, err := second.service.Get(ctx, decidedID); err != nil || d.Status != workflow.StatusDecided || d.Decision == nil || d.Decision.DecidedBy != alice {
		t.Errorf("the decided request after the restart: %+v, %v", d, err)
	}

	closed := settled(ctx, t, second.slack, waiting)
	if !hasText(closed, "the local engine restarted") {
		t.Errorf("the closed request does not say why: %s %s", closed.Text, closed.Blocks)
	}
	if !contains(second.slack.Replies(standInChannel, waiting.TS), func(m fakeslack.Message) bool { return hasText(m, "the local engine restarted") }) {
		t.Errorf("no reply in the closed request's thread says why: %+v", second.slack.Replies(standInChannel, waiting.TS))
	}
	if got, _ := second.slack.Message(standInChannel, approved.TS); got.Text != approvedFinal.Text || string(got.Blocks) != string(approvedFinal.Blocks) {
		t.Errorf("the decided request's message changed across the restart:\n%s\nwas\n%s", got.Blocks, approvedFinal.Blocks)
	}
	if got := second.slack.Ephemerals(mallory); !slices.EqualFunc(got, ephemerals, func(a, b fakeslack.Message) bool { return a.TS == b.TS && a.Text == b.Text }) {
		t.Errorf("mallory's private answers after the restart: %+v, want %+v", got, ephemerals)
	}
	if got := second.slack.History(standInChannel, approved.TS); len(got) != approvedFinal.Updates {
		t.Errorf("the decided message kept %d of its %d earlier versions", len(got), approvedFinal.Updates)
	}

	after := second.execute(ctx, t, "publish-with-approval", input("After the restart"))
	fresh := request(ctx, t, second.slack, standInChannel, before...)
	if fresh.TS <= before[len(before)-1].TS {
		t.Errorf("a new request's ts %s sorts before the restored messages' (%s)", fresh.TS, before[len(before)-1].TS)
	}
	click(ctx, t, second.slack, carol, fresh, "Approve draft 1")
	if x := second.ended(ctx, t, after); x.Status != "SUCCEEDED" {
		t.Errorf("the execution after the restart ended %s: %s %s\n%s", x.Status, x.Error, x.Cause, second.logs(t))
	}
	settled(ctx, t, second.slack, fresh)
	second.stop()

	// The audit archive, across both runs: every record of every approval
	// once, none missing, the decisions and the close at start among them.
	trails := map[string][]workflow.AuditEvent{}
	b, err := os.ReadFile(filepath.Join(data, archiveFile))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		var e archive.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil || e.Archived != archive.Added || e.Event == nil {
			t.Fatalf("archive line %q: %v", line, err)
		}
		trails[e.Event.ApprovalID] = append(trails[e.Event.ApprovalID], *e.Event)
	}
	freshID := button(t, fresh, "Approve draft 1").Value
	for id, trail := range trails {
		for i, e := range trail {
			if e.Seq != i+1 {
				t.Errorf("approval %s: archived record %d has seq %d: a record missing or repeated (%+v)", id, i+1, e.Seq, trail)
				break
			}
		}
	}
	has := func(id string, typ workflow.EventType, actor string) bool {
		return slices.ContainsFunc(trails[id], func(e workflow.AuditEvent) bool { return e.Type == typ && e.Actor == actor })
	}
	if !has(decidedID, workflow.EventDecided, alice) || !has(openID, workflow.EventClosed, "") || !has(freshID, workflow.EventDecided, carol) {
		t.Errorf("the archive lacks alice's decision, the close at the restart or carol's decision: %+v", trails)
	}
}
