package blocks

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares v, as indented JSON, with testdata/name.json.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	path := filepath.Join("testdata", name+".json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

var (
	created  = workflowtest.SampleCreated
	decided  = workflowtest.SampleDecided
	deadline = workflowtest.SampleDeadline
	stopped  = workflowtest.SampleStopped
)

// withBroadcasts is a with author text full of broadcast mentions.
func withBroadcasts(a workflow.Approval) workflow.Approval {
	a.Title = "Ship it <!channel>"
	a.Summary = "*Heads up* <!here|here>, <!everyone> and <!subteam^S0TEAM|@team>: see <https://example.com|the post> by <@U0AAA> in <#C0123>"
	a.Fields = []workflow.Field{{Label: "Who <!here>", Value: "<!subteam^S0TEAM>"}, {Label: "When", Value: "<!date^1700000000^{date}|Nov 14> <!channel|channel>"}}
	a.Drafts = []string{"Draft <!everyone>"}
	a.RevisionPresets = []string{"Tell <!here>", "Shorter"}
	return a
}

// A cancelled request never reads as expired, and links the newer request
// only with a plain web link.
func TestCancelledTexts(t *testing.T) {
	link := "https://fake.slack.com/archives/C0123/p1700000000000200"
	replaced := workflowtest.CancelledAs(workflowtest.SampleApproval(), workflow.Replaced(workflow.Approval{ID: "ap_newer"}, link))
	unlinked := workflowtest.CancelledAs(workflowtest.SampleApproval(), workflow.Replaced(workflow.Approval{ID: "ap_newer"}, ""))
	forged := workflowtest.CancelledAs(workflowtest.SampleApproval(), workflow.Replaced(workflow.Approval{ID: "ap_newer"}, "https://x.example/|click <!channel>"))
	aborted := workflowtest.CancelledAs(workflowtest.SampleApproval(), workflow.Cancellation{Reason: "execution aborted <!here>"})
	stoppedBy := func(status workflow.ExecutionStatus) workflow.Approval {
		return workflowtest.CancelledAs(workflowtest.SampleApproval(), workflow.Ended(workflow.Execution{Status: status, StoppedAt: stopped}))
	}
	at := "<!date^1795944600^{date_short_pretty} {time}|2026-11-29 09:30 UTC>"
	tests := []struct {
		name          string
		got           string
		want, wantNot []string
	}{
		{"reply, replaced", ReplyText(replaced), []string{"Replaced by a newer request", "<" + link + "|the new request>"}, []string{"xpired"}},
		{"late click, replaced", LateText(replaced, nil), []string{"replaced by a newer request", "<" + link + "|the new request>"}, []string{"xpired"}},
		{"outcome, replaced", outcomeText(replaced), []string{"Replaced by a newer request", "<" + link + "|open it>"}, []string{"xpired"}},
		{"reply, link unknown", ReplyText(unlinked), []string{"Replaced by a newer request."}, []string{"<http"}},
		{"late click, forged link", LateText(forged, nil), []string{"replaced"}, []string{"x.example", "<!channel>"}},
		{"outcome, other reason", outcomeText(aborted), []string{"Cancelled", "execution aborted &lt;!here&gt;"}, []string{"xpired", "<!here>"}},
		{"late click, other reason", LateText(aborted, nil), []string{"cancelled (execution aborted"}, []string{"xpired"}},
		{"outcome, execution aborted", outcomeText(stoppedBy(workflow.ExecutionAborted)), []string{"⏹️ *Cancelled*: the execution was aborted at " + at + ". Its buttons no longer decide anything."}, []string{"xpired"}},
		{"reply, execution timed out", ReplyText(stoppedBy(workflow.ExecutionTimedOut)), []string{"Cancelled: the execution timed out at " + at + "."}, nil},
		{"late click, execution failed", LateText(stoppedBy(workflow.ExecutionFailed), nil), []string{"This request was cancelled because the execution failed at " + at + ", so this button changes nothing."}, nil},
		{"late click, execution succeeded", LateText(stoppedBy(workflow.ExecutionSucceeded), nil), []string{"cancelled because the execution finished at " + at + " without waiting for this decision"}, nil},
		{"late click, execution not found", LateText(workflowtest.CancelledAs(workflowtest.SampleApproval(), workflow.Cancellation{Reason: workflow.ReasonExecutionNotFound}), nil), []string{"cancelled because the execution no longer exists"}, []string{" at "}},
	}
	for _, tt := range tests {
		for _, w := range tt.want {
			if !strings.Contains(tt.got, w) {
				t.Errorf("%s: %q does not contain %q", tt.name, tt.got, w)
			}
		}
		for _, w := range tt.wantNot {
			if strings.Contains(tt.got, w) {
				t.Errorf("%s: %q contains %q", tt.name, tt.got, w)
			}
		}
	}
}

func TestRequestMessageGolden(t *testing.T) {
	plain := workflowtest.SampleApproval()
	plain.Summary, plain.Fields, plain.RequestedBy, plain.Deadline = "", nil, "", time.Time{}
	tests := map[string]workflow.Approval{
		"request":            workflowtest.SampleApproval(),
		"request_drafts":     workflowtest.WithDrafts(workflowtest.SampleApproval()),
		"request_minimal":    plain,
		"request_broadcasts": withBroadcasts(workflowtest.SampleApproval()),
	}
	for name, a := range tests {
		t.Run(name, func(t *testing.T) { golden(t, name, RequestMessage(a)) })
	}
}

func TestOutcomeMessageGolden(t *testing.T) {
	expired := workflowtest.SampleApproval()
	expired.Status, expired.Decision = workflow.StatusExpired, &workflow.Decision{Action: workflow.ActionExpire, DraftIndex: -1, DecidedAt: decided}
	late := workflowtest.DecidedAs(workflowtest.SampleApproval(), workflow.Decision{Action: workflow.ActionApprove, DraftIndex: -1})
	late.Status = workflow.StatusExpired
	tests := map[string]workflow.Approval{
		"outcome_approved":            workflowtest.DecidedAs(workflowtest.SampleApproval(), workflow.Decision{Action: workflow.ActionApprove, DraftIndex: -1}),
		"outcome_approved_draft":      workflowtest.DecidedAs(workflowtest.WithDrafts(workflowtest.SampleApproval()), workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1}),
		"outcome_rejected":            workflowtest.DecidedAs(workflowtest.SampleApproval(), workflow.Decision{Action: workflow.ActionReject, DraftIndex: -1, Text: "Not <b>now</b>"}),
		"outcome_revise":              workflowtest.DecidedAs(workflowtest.WithDrafts(workflowtest.SampleApproval()), workflow.Decision{Action: workflow.ActionRevise, DraftIndex: -1, Preset: "Shorter", Text: "Cut the intro.\nKeep the end."}),
		"outcome_skipped":             workflowtest.DecidedAs(workflowtest.WithDrafts(workflowtest.SampleApproval()), workflow.Decision{Action: workflow.ActionSkip, DraftIndex: -1}),
		"outcome_expired":             expired,
		"outcome_expired_late":        late,
		"outcome_rejected_broadcasts": workflowtest.DecidedAs(withBroadcasts(workflowtest.SampleApproval()), workflow.Decision{Action: workflow.ActionReject, DraftIndex: -1, Text: "No <!channel>, ask <!subteam^S0TEAM|@team>"}),
		"outcome_revise_broadcasts":   workflowtest.DecidedAs(withBroadcasts(workflowtest.SampleApproval()), workflow.Decision{Action: workflow.ActionRevise, DraftIndex: -1, Preset: "Tell <!here>", Text: "<!everyone> please"}),
		"outcome_replaced":            workflowtest.CancelledAs(workflowtest.WithDrafts(workflowtest.SampleApproval()), workflow.Replaced(workflow.Approval{ID: "ap_newer"}, "https://fake.slack.com/archives/C0123/p1700000000000200")),
		"outcome_cancelled":           workflowtest.CancelledAs(workflowtest.SampleApproval(), workflow.Cancellation{Reason: "no longer needed"}),
	}
	for status, name := range map[workflow.ExecutionStatus]string{
		workflow.ExecutionAborted:   "outcome_execution_aborted",
		workflow.ExecutionTimedOut:  "outcome_execution_timed_out",
		workflow.ExecutionFailed:    "outcome_execution_failed",
		workflow.ExecutionSucceeded: "outcome_execution_succeeded",
	} {
		tests[name] = workflowtest.CancelledAs(workflowtest.WithDrafts(workflowtest.SampleApproval()), workflow.Ended(workflow.Execution{Status: status, StoppedAt: stopped}))
	}
	tests["outcome_execution_not_found"] = workflowtest.CancelledAs(workflowtest.SampleApproval(), workflow.Cancellation{Reason: workflow.ReasonExecutionNotFound})
	for name, a := range tests {
		t.Run(name, func(t *testing.T) {
			m := OutcomeMessage(a)
			golden(t, name, m)
			if strings.Contains(string(mustJSON(t, m)), `"actions"`) {
				t.Error("outcome message still has an actions block")
			}
		})
	}
}

func TestRequestButtons(t *testing.T) {
	type button struct{ ActionID, Text, Value, Style string }
	buttons := func(t *testing.T, m Message) []button {
		var blocks []struct {
			Type     string            `json:"type"`
			BlockID  string            `json:"block_id"`
			Elements []json.RawMessage `json:"elements"`
		}
		if err := json.Unmarshal(mustJSON(t, m.Blocks), &blocks); err != nil {
			t.Fatal(err)
		}
		var out []button
		for _, b := range blocks {
			if b.Type != "actions" {
				continue
			}
			if b.BlockID != "ap_sample" {
				t.Errorf("actions block_id = %q, want the approval ID", b.BlockID)
			}
			for _, raw := range b.Elements {
				var e struct {
					Type     string `json:"type"`
					ActionID string `json:"action_id"`
					Value    string `json:"value"`
					Style    string `json:"style"`
					Text     struct {
						Text string `json:"text"`
					} `json:"text"`
					Options []struct {
						Value string `json:"value"`
						Text  struct {
							Text string `json:"text"`
						} `json:"text"`
					} `json:"options"`
				}
				if err := json.Unmarshal(raw, &e); err != nil {
					t.Fatal(err)
				}
				if e.Type != "button" {
					// A menu: its options, as "value=text", in the Value.
					var opts []string
					for _, o := range e.Options {
						opts = append(opts, o.Value+"="+o.Text.Text)
					}
					out = append(out, button{e.ActionID, e.Type, strings.Join(opts, "; "), ""})
					continue
				}
				out = append(out, button{e.ActionID, e.Text.Text, e.Value, e.Style})
			}
		}
		return out
	}
	tests := []struct {
		name string
		a    workflow.Approval
		want []button
	}{
		{"plain", workflowtest.SampleApproval(), []button{
			{"approve", "Approve", "ap_sample", "primary"},
			{"reject", "Reject", "ap_sample", "danger"},
			{"more", "overflow", "approve_comment=Approve with comment; withdraw=Withdraw request", ""},
		}},
		{"drafts, presets, skip", workflowtest.WithDrafts(workflowtest.SampleApproval()), []button{
			{"approve_draft_0", "Approve draft 1", "ap_sample", "primary"},
			{"approve_draft_1", "Approve draft 2", "ap_sample", ""},
			{"reject", "Reject", "ap_sample", "danger"},
			{"preset_0", "Shorter", "ap_sample", ""},
			{"preset_1", "More detail", "ap_sample", ""},
			{"more", "overflow", "revise=Other changes…; approve_comment=Approve with comment; skip=Skip; withdraw=Withdraw request", ""},
		}},
		{"delegation allowed", withPolicy(workflowtest.SampleApproval(), workflow.Policy{AllowDelegation: true}), []button{
			{"approve", "Approve", "ap_sample", "primary"},
			{"reject", "Reject", "ap_sample", "danger"},
			{"more", "overflow", "approve_comment=Approve with comment; delegate=Hand over; withdraw=Withdraw request", ""},
		}},
		{"comment required", withPolicy(workflowtest.SampleApproval(), workflow.Policy{RequireComment: []workflow.Action{workflow.ActionApprove}}), []button{
			{"approve_comment", "Approve", "ap_sample", "primary"},
			{"reject", "Reject", "ap_sample", "danger"},
			{"more", "overflow", "withdraw=Withdraw request", ""},
		}},
		{"comment required, drafts", withPolicy(workflowtest.WithDrafts(workflowtest.SampleApproval()), workflow.Policy{RequireComment: []workflow.Action{workflow.ActionApprove}}), []button{
			{"approve_comment_draft_0", "Approve draft 1", "ap_sample", "primary"},
			{"approve_comment_draft_1", "Approve draft 2", "ap_sample", ""},
			{"reject", "Reject", "ap_sample", "danger"},
			{"preset_0", "Shorter", "ap_sample", ""},
			{"preset_1", "More detail", "ap_sample", ""},
			{"more", "overflow", "revise=Other changes…; skip=Skip; withdraw=Withdraw request", ""},
		}},
		{"everything: five drafts, ten presets, edits, delegation", withEverything(workflowtest.SampleApproval()), []button{
			{"pick_draft", "static_select", "0=Draft 1: d1; 1=Draft 2: d2; 2=Draft 3: d3; 3=Draft 4: d4; 4=Draft 5: d5", ""},
			{"approve_picked", "Approve", "ap_sample", "primary"},
			{"reject", "Reject", "ap_sample", "danger"},
			{"preset_0", "p1", "ap_sample", ""},
			{"preset_1", "p2", "ap_sample", ""},
			{"preset_2", "p3", "ap_sample", ""},
			{"changes", "static_select", "preset_3=p4; preset_4=p5; preset_5=p6; preset_6=p7; preset_7=p8; preset_8=p9; preset_9=p10; revise=Other changes…", ""},
			{"more", "overflow", "edit=Edit & approve; skip=Skip; delegate=Hand over; withdraw=Withdraw request", ""},
		}},
		{"three drafts, three presets: as many buttons as fit", withDraftsAndPresets(workflowtest.SampleApproval(), 3, 3), []button{
			{"approve_draft_0", "Approve draft 1", "ap_sample", "primary"},
			{"approve_draft_1", "Approve draft 2", "ap_sample", ""},
			{"approve_draft_2", "Approve draft 3", "ap_sample", ""},
			{"reject", "Reject", "ap_sample", "danger"},
			{"preset_0", "p1", "ap_sample", ""},
			{"more", "overflow", "preset_1=p2; preset_2=p3; revise=Other changes…; approve_comment=Approve with comment; withdraw=Withdraw request", ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, buttons(t, RequestMessage(tt.a))); diff != "" {
				t.Errorf("buttons (-want +got):\n%s", diff)
			}
		})
	}
}

// withDraftsAndPresets gives a n drafts and m presets ("d1", "p1", …).
func withDraftsAndPresets(a workflow.Approval, n, m int) workflow.Approval {
	a.Drafts, a.RevisionPresets = nil, nil
	for i := range n {
		a.Drafts = append(a.Drafts, "d"+strconv.Itoa(i+1))
	}
	for i := range m {
		a.RevisionPresets = append(a.RevisionPresets, "p"+strconv.Itoa(i+1))
	}
	return a
}

// withEverything is a at every limit of what a request offers.
func withEverything(a workflow.Approval) workflow.Approval {
	a = withDraftsAndPresets(a, workflow.MaxDrafts, workflow.MaxPresets)
	a.AllowSkip, a.AllowEdit, a.Policy.AllowDelegation = true, true, true
	return a
}

func TestReplyText(t *testing.T) {
	expired := workflowtest.SampleApproval()
	expired.Status = workflow.StatusExpired
	tests := []struct {
		a    workflow.Approval
		want string
	}{
		{workflowtest.DecidedAs(workflowtest.SampleApproval(), workflow.Decision{Action: workflow.ActionApprove, DraftIndex: -1}), "Approved by <@U0AAA>."},
		{workflowtest.DecidedAs(workflowtest.WithDrafts(workflowtest.SampleApproval()), workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1}), "Approved draft 2 by <@U0AAA>."},
		{workflowtest.DecidedAs(workflowtest.SampleApproval(), workflow.Decision{Action: workflow.ActionReject, DraftIndex: -1, Text: "No <!here>"}), "Rejected by <@U0AAA>: No &lt;!here&gt;"},
		{workflowtest.DecidedAs(workflowtest.SampleApproval(), workflow.Decision{Action: workflow.ActionReject, DraftIndex: -1}), "Rejected by <@U0AAA>."},
		{workflowtest.DecidedAs(workflowtest.WithDrafts(workflowtest.SampleApproval()), workflow.Decision{Action: workflow.ActionRevise, DraftIndex: -1, Preset: "Shorter", Text: "cut"}), "Changes requested by <@U0AAA>: Shorter — cut"},
		{workflowtest.DecidedAs(workflowtest.WithDrafts(workflowtest.SampleApproval()), workflow.Decision{Action: workflow.ActionSkip, DraftIndex: -1}), "Skipped by <@U0AAA>."},
		{expired, "Expired: the workflow stopped waiting for a decision."},
	}
	for _, tt := range tests {
		if got := ReplyText(tt.a); got != tt.want {
			t.Errorf("ReplyText = %q, want %q", got, tt.want)
		}
	}
}

func TestMessagesNeverShowTheTaskToken(t *testing.T) {
	a := workflowtest.WithDrafts(workflowtest.SampleApproval())
	views := []any{
		RequestMessage(a),
		OutcomeMessage(workflowtest.DecidedAs(a, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0})),
		RejectModal(a), ReviseModal(a),
		PendingMessage("", []workflow.Approval{a}, decided, "https://slack.com"),
	}
	for _, v := range views {
		if s := string(mustJSON(t, v)); strings.Contains(s, "secret-task-token") {
			t.Errorf("task token in %s", s)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
