package soak

import (
	"encoding/json"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
	sfntest "github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

func succeeded(t *testing.T, out map[string]any) sfntest.Outcome {
	t.Helper()
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return sfntest.Outcome{State: sfntest.StateSucceeded, Output: string(b)}
}

func decided(action workflow.Action, by, text string) workflow.Approval {
	return workflow.Approval{Status: workflow.StatusDecided, Decision: &workflow.Decision{Action: action, DecidedBy: by, Text: text}}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	w := peopleOf(7)
	approval := func(by string, approvals ...string) map[string]any {
		var list []any
		for _, a := range approvals {
			list = append(list, map[string]any{"userId": a})
		}
		return map[string]any{"action": "approved", "decidedBy": by, "approvals": list}
	}
	expired := workflow.Approval{Status: workflow.StatusExpired}
	tests := []struct {
		name string
		it   *item
		task sfntest.Outcome
		a    workflow.Approval
		want string // a part of the complaint; "" for none
	}{
		{"approved as decided", &item{kind: kindApprove, who: w}, succeeded(t, approval(w.approver, w.approver)), decided(workflow.ActionApprove, w.approver, ""), ""},
		{"approved by somebody else", &item{kind: kindApprove, who: w}, succeeded(t, approval(w.member, w.member)), decided(workflow.ActionApprove, w.member, ""), "no one of its people decided"},
		{"the record disagrees", &item{kind: kindApprove, who: w}, succeeded(t, approval(w.approver, w.approver)), decided(workflow.ActionReject, w.approver, ""), "the approval records rejected"},
		{"resumed, record pending", &item{kind: kindApprove, who: w}, succeeded(t, approval(w.approver, w.approver)), workflow.Approval{Status: workflow.StatusPending}, "but the approval is pending"},
		{"rejected with the reason", &item{kind: kindReject, who: w, reason: "No."},
			sfntest.Outcome{State: sfntest.StateFailed, Error: "Rejected", Cause: "No."}, decided(workflow.ActionReject, w.member, "No."), ""},
		{"rejected with another reason", &item{kind: kindReject, who: w, reason: "No."},
			sfntest.Outcome{State: sfntest.StateFailed, Error: "Rejected", Cause: "Yes."}, decided(workflow.ActionReject, w.member, "Yes."), "no one of its people decided"},
		{"changes requested", &item{kind: kindRevise, who: w, reason: "Cut."},
			succeeded(t, map[string]any{"action": "revise", "decidedBy": w.approver, "preset": "Shorter", "feedback": "Shorter\nCut."}), decided(workflow.ActionRevise, w.approver, "Cut."), ""},
		{"changes without the text", &item{kind: kindRevise, who: w, reason: "Cut."},
			succeeded(t, map[string]any{"action": "revise", "decidedBy": w.approver, "preset": "Shorter", "feedback": "Shorter"}), decided(workflow.ActionRevise, w.approver, ""), "no one of its people"},
		{"quorum of both", &item{kind: kindQuorum, who: w}, succeeded(t, approval(w.member, w.approver, w.member)), decided(workflow.ActionApprove, w.member, ""), ""},
		{"quorum of one", &item{kind: kindQuorum, who: w}, succeeded(t, approval(w.member, w.member)), decided(workflow.ActionApprove, w.member, ""), "no one of its people"},
		{"handed over and approved", &item{kind: kindHandOver, who: w},
			succeeded(t, map[string]any{"action": "approved", "decidedBy": w.delegate, "delegations": []any{map[string]any{"from": w.approver, "to": w.delegate}}}),
			decided(workflow.ActionApprove, w.delegate, ""), ""},
		{"approved by the delegator", &item{kind: kindHandOver, who: w}, succeeded(t, approval(w.approver, w.approver)), decided(workflow.ActionApprove, w.approver, ""), "no one of its people"},
		{"two at once: the skip won", &item{kind: kindDouble, variant: "two", who: w},
			succeeded(t, map[string]any{"action": "skip", "decidedBy": w.member}), decided(workflow.ActionSkip, w.member, ""), ""},
		{"same twice: a skip", &item{kind: kindDouble, variant: "same", who: w},
			succeeded(t, map[string]any{"action": "skip", "decidedBy": w.member}), decided(workflow.ActionSkip, w.member, ""), "no one of its people"},
		{"deadline passed", &item{kind: kindDeadline, variant: "never", who: w}, sfntest.Outcome{State: sfntest.StateTimedOut}, expired, ""},
		{"deadline passed, record pending", &item{kind: kindDeadline, variant: "never", who: w}, sfntest.Outcome{State: sfntest.StateTimedOut}, workflow.Approval{Status: workflow.StatusPending}, "the task timed out, but the approval is pending"},
		{"approved before the deadline", &item{kind: kindDeadline, variant: "before", who: w}, succeeded(t, approval(w.approver, w.approver)), decided(workflow.ActionApprove, w.approver, ""), ""},
		{"approved after the deadline", &item{kind: kindDeadline, variant: "after", who: w}, succeeded(t, approval(w.approver, w.approver)), decided(workflow.ActionApprove, w.approver, ""), "no one of its people"},
		{"expired by the bot", &item{kind: kindDeadline, variant: "never", who: w}, sfntest.Outcome{State: sfntest.StateFailed, Error: "ApprovalExpired"}, expired, ""},
		{"a decision expired", &item{kind: kindApprove, who: w}, sfntest.Outcome{State: sfntest.StateTimedOut}, expired, "no one of its people"},
		{"not JSON", &item{kind: kindApprove, who: w}, sfntest.Outcome{State: sfntest.StateSucceeded, Output: "{"}, decided(workflow.ActionApprove, w.approver, ""), "not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := judge(tt.it, tt.task, tt.a)
			switch {
			case tt.want == "" && got != "":
				t.Errorf("judge = %q, want nothing wrong", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("judge = %q, want it to say %q", got, tt.want)
			}
		})
	}
}

func TestCheckAudit(t *testing.T) {
	t.Parallel()
	w := peopleOf(3)
	ev := func(seq int, typ workflow.EventType, actor string, users ...string) workflow.AuditEvent {
		return workflow.AuditEvent{Seq: seq, Type: typ, Actor: actor, Users: users}
	}
	quorum := decided(workflow.ActionApprove, w.member, "")
	quorum.MessageTS, quorum.Policy.Quorum = "1.1", 2
	quorum.Votes = []workflow.Vote{{UserID: w.approver}, {UserID: w.member}}
	complete := []workflow.AuditEvent{
		ev(1, workflow.EventRequested, requester), ev(2, workflow.EventPosted, ""),
		ev(3, workflow.EventVoted, w.approver), ev(4, workflow.EventVoted, w.member),
		ev(5, workflow.EventDecided, w.member), ev(6, workflow.EventResumed, w.member),
	}
	handedOver := decided(workflow.ActionApprove, w.delegate, "")
	handedOver.MessageTS = "1.1"
	handedOver.Delegations = []workflow.Delegation{{From: w.approver, To: w.delegate}}
	expired := workflow.Approval{Status: workflow.StatusExpired, MessageTS: "1.1", Decision: &workflow.Decision{Action: workflow.ActionExpire}}
	tests := []struct {
		name           string
		a              workflow.Approval
		events         []workflow.AuditEvent
		missing, twice int
	}{
		{"quorum, complete", quorum, complete, 0, 0},
		{"a vote missing", quorum, append(append([]workflow.AuditEvent{}, complete[:3]...), complete[4:]...), 1, 0},
		{"the decision twice", quorum, append(append([]workflow.AuditEvent{}, complete...), ev(7, workflow.EventDecided, w.member)), 0, 1},
		{"a seq twice", quorum, append(append([]workflow.AuditEvent{}, complete...), ev(6, workflow.EventReminded, "")), 0, 1},
		{"no resume", quorum, complete[:5], 1, 0},
		{"hand-over", handedOver, []workflow.AuditEvent{
			ev(1, workflow.EventRequested, requester), ev(2, workflow.EventPosted, ""), ev(3, workflow.EventDelegated, w.approver, w.delegate),
			ev(4, workflow.EventDecided, w.delegate), ev(5, workflow.EventResumed, w.delegate)}, 0, 0},
		{"hand-over to another", handedOver, []workflow.AuditEvent{
			ev(1, workflow.EventRequested, requester), ev(2, workflow.EventPosted, ""), ev(3, workflow.EventDelegated, w.approver, w.member),
			ev(4, workflow.EventDecided, w.delegate), ev(5, workflow.EventResumed, w.delegate)}, 1, 1},
		{"expired", expired, []workflow.AuditEvent{ev(1, workflow.EventRequested, requester), ev(2, workflow.EventPosted, ""), ev(3, workflow.EventClosed, "")}, 0, 0},
		{"expired, resumed too", expired, []workflow.AuditEvent{ev(1, workflow.EventRequested, requester), ev(2, workflow.EventPosted, ""), ev(3, workflow.EventClosed, ""), ev(4, workflow.EventResumed, "")}, 0, 1},
		{"nothing", expired, nil, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var f Findings
			checkAudit(&f, &item{who: w}, tt.a, tt.events)
			if f.AuditMissing != tt.missing || f.AuditTwice != tt.twice {
				t.Errorf("missing %d, twice %d; want %d, %d: %+v", f.AuditMissing, f.AuditTwice, tt.missing, tt.twice, f.problems)
			}
		})
	}
}

func TestRequestMessages(t *testing.T) {
	t.Parallel()
	const a, b = "ap_aaaaaaaaaaaaaaaaaaaaaaaaaa", "ap_bbbbbbbbbbbbbbbbbbbbbbbbbb"
	msgs := []fakeslack.Message{
		{TS: "1.1", User: "UBOT", Blocks: json.RawMessage(`[{"block_id":"` + a + `"},{"value":"` + a + `"}]`)},
		{TS: "1.2", User: "UBOT", Blocks: json.RawMessage(`[{"block_id":"` + b + `"}]`)},
		{TS: "1.3", User: "UBOT", Blocks: json.RawMessage(`[{"block_id":"` + b + `"}]`)},     // posted twice
		{TS: "1.4", ThreadTS: "1.1", User: "UBOT", Blocks: json.RawMessage(`["` + a + `"]`)}, // a reply
		{TS: "1.5", User: "UHUMAN", Blocks: json.RawMessage(`["` + a + `"]`)},                // a person's
		{TS: "1.6", User: "UBOT", Ephemeral: true, Blocks: json.RawMessage(`["` + a + `"]`)}, // private
	}
	got := requestMessages(msgs, "UBOT")
	if len(got[a]) != 1 || got[a][0].TS != "1.1" || len(got[b]) != 2 {
		t.Errorf("requestMessages = %+v", got)
	}
}

func TestParseMix(t *testing.T) {
	t.Parallel()
	if m, err := ParseMix(DefaultMix.String()); err != nil || m.String() != DefaultMix.String() {
		t.Errorf("ParseMix(%s) = %v, %v", DefaultMix, m, err)
	}
	if m, err := ParseMix("approve=60,deadline=40"); err != nil || m[kindApprove] != 60 || m[kindReject] != 0 {
		t.Errorf("ParseMix = %v, %v", m, err)
	}
	for _, bad := range []string{"", "approve=50", "approve=50,dance=50", "approve=x,reject=100", "approve=50,approve=50", "approve=101,reject=-1"} {
		if _, err := ParseMix(bad); err == nil {
			t.Errorf("ParseMix(%q) succeeded", bad)
		}
	}
}

func TestPlanFollowsTheMixAndTheSeed(t *testing.T) {
	t.Parallel()
	o := Defaults()
	o.Approvals, o.Seed = 200, 42
	plan := makePlan(newDice(o.Seed, streamPlan).rng, o)
	again := makePlan(newDice(o.Seed, streamPlan).rng, o)
	if len(plan) != o.Approvals+o.WarmUp {
		t.Fatalf("%d items, want %d", len(plan), o.Approvals+o.WarmUp)
	}
	count := map[kind]int{}
	for i, it := range plan {
		if it.kind != again[i].kind || it.at != again[i].at || it.variant != again[i].variant {
			t.Fatalf("item %d differs with the same seed", i)
		}
		if it.warmUp {
			continue
		}
		count[it.kind]++
		switch {
		case it.kind == kindDeadline && (it.deadline < 10e9 || it.deadline > o.Duration*7/10):
			t.Errorf("deadline %s outside the click phase's first 70%%", it.deadline)
		case it.kind != kindDeadline && (it.at < 0 || it.at >= o.Duration):
			t.Errorf("item %d acts at %s, outside the click phase", i, it.at)
		}
	}
	for _, k := range kinds {
		if count[k] != o.Approvals*o.Mix[k]/100 {
			t.Errorf("%d %s approvals, want %d", count[k], k, o.Approvals*o.Mix[k]/100)
		}
	}
}

func TestOptionsCheck(t *testing.T) {
	t.Parallel()
	if err := Defaults().Check(); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	for name, edit := range map[string]func(*Options){
		"no approvals":       func(o *Options) { o.Approvals = 0 },
		"short":              func(o *Options) { o.Duration = 0 },
		"one replica":        func(o *Options) { o.Replicas = 1 },
		"all survive":        func(o *Options) { o.Survivors = o.Replicas },
		"settle under lease": func(o *Options) { o.Settle = 30e9 },
		"share above 1":      func(o *Options) { o.DDBThrottle = 1.5 },
		"negative share":     func(o *Options) { o.Slack5xx = -0.1 },
		"mix under 100":      func(o *Options) { o.Mix = Mix{kindApprove: 50} },
		"kills too often":    func(o *Options) { o.KillEvery = 1e6 },
		"sweep too often":    func(o *Options) { o.SweepInterval = 1e8 },
	} {
		o := Defaults()
		edit(&o)
		if err := o.Check(); err == nil {
			t.Errorf("%s: Check passed", name)
		}
	}
}

// socketOwner finds this very process as the owner of a connection it
// holds, and nobody for a connection it does not.
func TestSocketOwner(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	peer := ln.Addr().(*net.TCPAddr).Port
	if got := socketOwner(conn.LocalAddr().String(), peer, []int{os.Getpid()}); got != os.Getpid() {
		t.Errorf("socketOwner = %d, want this process (%d)", got, os.Getpid())
	}
	if got := socketOwner(conn.LocalAddr().String(), peer+1, []int{os.Getpid()}); got != 0 {
		t.Errorf("socketOwner with the wrong peer = %d, want 0", got)
	}
}

func TestEveryStaysBounded(t *testing.T) {
	t.Parallel()
	d := newDice(1, 1)
	var sum float64
	for range 10000 {
		x := d.every(1e9)
		if x < 0 || x > 4e9 {
			t.Fatalf("every(1s) = %s", x)
		}
		sum += float64(x)
	}
	if mean := sum / 10000; mean < 0.85e9 || mean > 1.05e9 {
		t.Errorf("mean pause %.2fs, want about 1s (capped at 4×)", mean/1e9)
	}
}
