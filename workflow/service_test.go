package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

type fixture struct {
	svc     *workflow.Service
	store   *workflowtest.Store
	resumer *workflowtest.Resumer
	audit   *workflowtest.AuditLog
	now     time.Time
	mu      sync.Mutex
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{
		store:   workflowtest.NewStore(),
		resumer: workflowtest.NewResumer(),
		audit:   workflowtest.NewAuditLog(),
		now:     time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC),
	}
	dir := workflowtest.NewDirectory(map[string][]string{"S0456DEF": {"U0GROUP1"}})
	f.svc = workflow.NewService(f.store, f.resumer, dir)
	f.svc.Now = f.clock
	f.svc.Audit = f.audit
	return f
}

func (f *fixture) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fixture) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// request stores an approval for a fresh token and opens its task.
func (f *fixture) request(t *testing.T, edit func(*workflow.Request)) workflow.Approval {
	t.Helper()
	r := must(workflow.ParseRequest(encode(t, validPayload())))
	r.TaskToken = workflow.TaskToken(fmt.Sprintf("%s-%d", token, time.Now().UnixNano()))
	if edit != nil {
		edit(&r)
	}
	a, created, err := f.svc.Request(context.Background(), r)
	if err != nil || !created {
		t.Fatalf("Request: created=%v err=%v", created, err)
	}
	f.resumer.Open(r.TaskToken.Reveal())
	if a, err = f.svc.RecordMessage(context.Background(), a.ID, a.Channel, "1700000001.000200"); err != nil {
		t.Fatal(err)
	}
	return a
}

func approve(user string) workflow.Decision {
	return workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, DecidedBy: user}
}

func TestRequestIsIdempotentPerToken(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := must(workflow.ParseRequest(encode(t, validPayload())))
	first, created, err := f.svc.Request(context.Background(), r)
	if err != nil || !created {
		t.Fatalf("first: created=%v err=%v", created, err)
	}
	second, created, err := f.svc.Request(context.Background(), r)
	if err != nil || created {
		t.Fatalf("second: created=%v err=%v", created, err)
	}
	if first.ID != second.ID {
		t.Errorf("retry made a new approval %s, want %s", second.ID, first.ID)
	}
	if !strings.HasPrefix(first.ID, "ap_") || len(first.ID) != 29 {
		t.Errorf("ID %q is not ap_ + 26 base32 characters (128 bits)", first.ID)
	}
	if want := f.now.Add(24 * time.Hour); !first.Deadline.Equal(want) {
		t.Errorf("deadline = %v, want %v", first.Deadline, want)
	}
	if want := f.now.Add(24*time.Hour + workflow.DefaultRetention); !first.PurgeAt.Equal(want) {
		t.Errorf("purgeAt = %v, want %v", first.PurgeAt, want)
	}
}

func TestDecideOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		decision   workflow.Decision
		wantOutput string
		wantError  string
		wantCause  string
	}{
		{
			name:       "approve draft 2",
			decision:   approve("U0123ABC"),
			wantOutput: `{"approvalId":"ID","action":"approved","draftIndex":1,"selectedDraft":"second draft","decidedBy":"U0123ABC","decidedAt":"2026-11-29T10:00:00Z","approvals":[{"userId":"U0123ABC","at":"2026-11-29T10:00:00Z","comment":""}]}`,
		},
		{
			name:       "group member revises with preset and text",
			decision:   workflow.Decision{Action: workflow.ActionRevise, DraftIndex: workflow.NoDraft, Preset: "Shorter", Text: " cut the intro ", DecidedBy: "U0GROUP1"},
			wantOutput: `{"approvalId":"ID","action":"revise","preset":"Shorter","feedback":"Shorter\ncut the intro","decidedBy":"U0GROUP1","decidedAt":"2026-11-29T10:00:00Z","approvals":[{"userId":"U0GROUP1","at":"2026-11-29T10:00:00Z","comment":""}]}`,
		},
		{
			name:       "skip",
			decision:   workflow.Decision{Action: workflow.ActionSkip, DraftIndex: workflow.NoDraft, DecidedBy: "U0123ABC"},
			wantOutput: `{"approvalId":"ID","action":"skip","decidedBy":"U0123ABC","decidedAt":"2026-11-29T10:00:00Z","approvals":[{"userId":"U0123ABC","at":"2026-11-29T10:00:00Z","comment":""}]}`,
		},
		{
			name:      "reject with reason",
			decision:  workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, Text: "tone is off", DecidedBy: "U0123ABC"},
			wantError: "Rejected", wantCause: "tone is off",
		},
		{
			name:      "reject without reason",
			decision:  workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, DecidedBy: "U0123ABC"},
			wantError: "Rejected", wantCause: "Rejected by U0123ABC without a reason.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			a := f.request(t, nil)
			got, err := f.svc.Decide(context.Background(), a.ID, tt.decision)
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if got.Status != workflow.StatusDecided || got.Queue() != workflow.QueueMessage {
				t.Errorf("status %s queue %q, want decided in the message queue", got.Status, got.Queue())
			}
			task, _ := f.resumer.Task(a.TaskToken.Reveal())
			if want := strings.ReplaceAll(tt.wantOutput, `"ID"`, `"`+a.ID+`"`); task.Output != want {
				t.Errorf("output:\n got %s\nwant %s", task.Output, want)
			}
			if task.Error != tt.wantError || task.Cause != tt.wantCause {
				t.Errorf("failure = %q/%q, want %q/%q", task.Error, task.Cause, tt.wantError, tt.wantCause)
			}
		})
	}
}

func TestDecideRefusesWithoutChange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		edit     func(*workflow.Request)
		decision workflow.Decision
		wantCode string
	}{
		{name: "stranger", decision: approve("U0STRANGER"), wantCode: workflow.EFORBIDDEN},
		{name: "requester listed as approver", edit: func(r *workflow.Request) { r.Approvers = append(r.Approvers, "U0999XYZ") }, decision: approve("U0999XYZ"), wantCode: workflow.EFORBIDDEN},
		{name: "no user", decision: approve(""), wantCode: workflow.EFORBIDDEN},
		{name: "draft out of range", decision: workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 2, DecidedBy: "U0123ABC"}, wantCode: workflow.EINVALID},
		{name: "draft required", decision: workflow.Decision{Action: workflow.ActionApprove, DraftIndex: workflow.NoDraft, DecidedBy: "U0123ABC"}, wantCode: workflow.EINVALID},
		{name: "draft on request without drafts", edit: func(r *workflow.Request) { r.Drafts = nil }, decision: approve("U0123ABC"), wantCode: workflow.EINVALID},
		{name: "skip not allowed", edit: func(r *workflow.Request) { r.AllowSkip = false }, decision: workflow.Decision{Action: workflow.ActionSkip, DraftIndex: workflow.NoDraft, DecidedBy: "U0123ABC"}, wantCode: workflow.EINVALID},
		{name: "revise without presets", edit: func(r *workflow.Request) { r.RevisionPresets = nil }, decision: workflow.Decision{Action: workflow.ActionRevise, DraftIndex: workflow.NoDraft, Text: "x", DecidedBy: "U0123ABC"}, wantCode: workflow.EINVALID},
		{name: "revise with unknown preset", decision: workflow.Decision{Action: workflow.ActionRevise, DraftIndex: workflow.NoDraft, Preset: "Longer", DecidedBy: "U0123ABC"}, wantCode: workflow.EINVALID},
		{name: "revise with nothing", decision: workflow.Decision{Action: workflow.ActionRevise, DraftIndex: workflow.NoDraft, Text: "  ", DecidedBy: "U0123ABC"}, wantCode: workflow.EINVALID},
		{name: "reason too long", decision: workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, Text: strings.Repeat("x", 3001), DecidedBy: "U0123ABC"}, wantCode: workflow.EINVALID},
		{name: "unknown action", decision: workflow.Decision{Action: "maybe", DraftIndex: workflow.NoDraft, DecidedBy: "U0123ABC"}, wantCode: workflow.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			a := f.request(t, tt.edit)
			_, err := f.svc.Decide(context.Background(), a.ID, tt.decision)
			if got := workflow.ErrorCode(err); got != tt.wantCode {
				t.Fatalf("err = %v (code %q), want code %q", err, got, tt.wantCode)
			}
			after := must(f.svc.Get(context.Background(), a.ID))
			task, _ := f.resumer.Task(a.TaskToken.Reveal())
			if after.Status != workflow.StatusPending || !task.Open {
				t.Errorf("something changed: status %s, task open %v", after.Status, task.Open)
			}
		})
	}
}

func TestDecideUnknownApproval(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, err := f.svc.Decide(context.Background(), "ap_nope", approve("U0123ABC"))
	if workflow.ErrorCode(err) != workflow.ENOTFOUND {
		t.Fatalf("err = %v, want not found", err)
	}
}

func TestConcurrentDecisionsResumeOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, nil)
	const clicks = 20
	var wg sync.WaitGroup
	errs := make(chan error, clicks)
	for i := range clicks {
		wg.Go(func() {
			d := approve("U0123ABC")
			if i%2 == 1 {
				d = workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, DecidedBy: "U0GROUP1"}
			}
			_, err := f.svc.Decide(context.Background(), a.ID, d)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	var ok, conflicts int
	for err := range errs {
		switch workflow.ErrorCode(err) {
		case "":
			if err != nil {
				t.Errorf("unexpected error: %v", err)
			}
			ok++
		case workflow.ECONFLICT:
			conflicts++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	task, _ := f.resumer.Task(a.TaskToken.Reveal())
	if ok != 1 || conflicts != clicks-1 || task.Results != 1 {
		t.Errorf("ok=%d conflicts=%d results=%d, want 1/%d/1", ok, conflicts, task.Results, clicks-1)
	}
}

func TestSecondDecisionSeesTheFirst(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, nil)
	if _, err := f.svc.Decide(context.Background(), a.ID, approve("U0123ABC")); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.Decide(context.Background(), a.ID, approve("U0GROUP1"))
	var derr *workflow.Error
	if !errors.As(err, &derr) || derr.Code != workflow.ECONFLICT || derr.Approval == nil || derr.Approval.Decision.DecidedBy != "U0123ABC" {
		t.Fatalf("err = %#v, want a conflict naming the first decider", err)
	}
	if !strings.Contains(derr.Message, "already decided by U0123ABC") {
		t.Errorf("message = %q", derr.Message)
	}
}

func TestExpiredTask(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, nil)
	f.resumer.TimeOut(a.TaskToken.Reveal())
	got, err := f.svc.Decide(context.Background(), a.ID, approve("U0123ABC"))
	if workflow.ErrorCode(err) != workflow.EEXPIRED {
		t.Fatalf("err = %v, want expired", err)
	}
	if got.Status != workflow.StatusExpired || got.Queue() != workflow.QueueMessage {
		t.Errorf("status %s queue %q, want expired in the message queue", got.Status, got.Queue())
	}
	if _, err := f.svc.Decide(context.Background(), a.ID, approve("U0123ABC")); workflow.ErrorCode(err) != workflow.EEXPIRED {
		t.Errorf("second click: err = %v, want expired", err)
	}
}

func TestCrashBetweenClaimAndResumeHeals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, nil)
	outage := errors.New("connection reset")
	f.resumer.SetErr(outage)
	_, err := f.svc.Decide(context.Background(), a.ID, approve("U0123ABC"))
	if !errors.Is(err, outage) {
		t.Fatalf("err = %v, want the transient error", err)
	}
	if got := must(f.svc.Get(context.Background(), a.ID)); got.Status != workflow.StatusClaimed {
		t.Fatalf("status %s, want claimed", got.Status)
	}
	f.resumer.SetErr(nil)

	// Within the lease another click is told somebody is deciding.
	if _, err := f.svc.Decide(context.Background(), a.ID, approve("U0GROUP1")); workflow.ErrorCode(err) != workflow.ECONFLICT {
		t.Fatalf("click within lease: err = %v, want conflict", err)
	}
	rep, err := f.svc.Recover(context.Background())
	if err != nil || rep.Resumed != 0 {
		t.Fatalf("Recover within lease = %+v, %v; want nothing resumed", rep, err)
	}
	// Past the shortest lease a claim is listed as due, but this
	// service's lease (the default) still holds it.
	f.advance(workflow.MinClaimLease + time.Second)
	if rep, err := f.svc.Recover(context.Background()); err != nil || rep.Resumed != 0 {
		t.Fatalf("Recover within the default lease = %+v, %v; want nothing resumed", rep, err)
	}

	f.advance(workflow.DefaultClaimLease - workflow.MinClaimLease)
	rep, err = f.svc.Recover(context.Background())
	if err != nil || rep.Resumed != 1 || len(rep.Completed) != 1 || rep.Completed[0].ID != a.ID || rep.Completed[0].Status != workflow.StatusDecided {
		t.Fatalf("Recover = %+v, %v; want 1 resumed, its approval reported decided", rep, err)
	}
	got := must(f.svc.Get(context.Background(), a.ID))
	task, _ := f.resumer.Task(a.TaskToken.Reveal())
	if got.Status != workflow.StatusDecided || got.Attempts != 2 || task.Results != 1 {
		t.Errorf("status %s attempts %d results %d, want decided/2/1", got.Status, got.Attempts, task.Results)
	}
	if got.Decision.DecidedBy != "U0123ABC" || !strings.Contains(task.Output, `"decidedBy":"U0123ABC"`) {
		t.Errorf("the takeover must keep the first decision, got %+v / %s", got.Decision, task.Output)
	}
}

func TestRetryOfClickAfterLeaseCompletesClaim(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, nil)
	f.resumer.SetErr(errors.New("throttled"))
	_, _ = f.svc.Decide(context.Background(), a.ID, approve("U0123ABC"))
	f.resumer.SetErr(nil)
	f.advance(workflow.DefaultClaimLease)
	got, err := f.svc.Decide(context.Background(), a.ID, approve("U0123ABC"))
	if err != nil || got.Status != workflow.StatusDecided {
		t.Fatalf("retry: status %s err %v, want decided", got.Status, err)
	}
}

func TestRecoverExpiresOverdueApprovals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	overdue := f.request(t, func(r *workflow.Request) { r.TimeoutSeconds = 60 })
	f.resumer.TimeOut(overdue.TaskToken.Reveal())
	stillOpen := f.request(t, func(r *workflow.Request) { r.TimeoutSeconds = 60 }) // the Task's real timeout is longer
	later := f.request(t, func(r *workflow.Request) { r.TimeoutSeconds = 3600 })
	noDeadline := f.request(t, func(r *workflow.Request) { r.TimeoutSeconds = 0 })

	f.advance(60*time.Second + workflow.DefaultExpiryGrace)
	rep, err := f.svc.Recover(context.Background())
	if err != nil || rep.Expired != 2 || rep.Failed != 0 {
		t.Fatalf("Recover = %+v, %v; want 2 expired", rep, err)
	}
	for _, a := range []workflow.Approval{overdue, stillOpen} {
		if got := must(f.svc.Get(context.Background(), a.ID)); got.Status != workflow.StatusExpired {
			t.Errorf("%s: status %s, want expired", a.ID, got.Status)
		}
	}
	task, _ := f.resumer.Task(stillOpen.TaskToken.Reveal())
	if task.Error != workflow.ErrorApprovalExpired {
		t.Errorf("open task got error %q, want %q so the execution does not hang", task.Error, workflow.ErrorApprovalExpired)
	}
	for _, a := range []workflow.Approval{later, noDeadline} {
		if got := must(f.svc.Get(context.Background(), a.ID)); got.Status != workflow.StatusPending {
			t.Errorf("%s: status %s, want pending", a.ID, got.Status)
		}
	}
	unsynced := must(f.svc.Unsynced(context.Background(), 10))
	if len(unsynced) != 2 {
		t.Errorf("unsynced = %d, want the 2 expired messages", len(unsynced))
	}
	if err := f.svc.MessageSynced(context.Background(), overdue.ID); err != nil {
		t.Fatal(err)
	}
	if unsynced := must(f.svc.Unsynced(context.Background(), 10)); len(unsynced) != 1 {
		t.Errorf("unsynced after sync = %d, want 1", len(unsynced))
	}
}

func TestPendingFor(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	first := f.request(t, nil)
	f.advance(time.Minute)
	second := f.request(t, func(r *workflow.Request) { r.Approvers = []string{"U0GROUP1"} })
	f.advance(time.Minute)
	decided := f.request(t, nil)
	if _, err := f.svc.Decide(context.Background(), decided.ID, approve("U0123ABC")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		user string
		want []string
	}{
		{user: "U0123ABC", want: []string{first.ID}},
		{user: "U0GROUP1", want: []string{first.ID, second.ID}},
		{user: "U0999XYZ", want: nil}, // the requester
		{user: "U0STRANGER", want: nil},
	}
	for _, tt := range tests {
		got := must(f.svc.PendingFor(context.Background(), tt.user, 20))
		var ids []string
		for _, a := range got {
			ids = append(ids, a.ID)
		}
		if fmt.Sprint(ids) != fmt.Sprint(tt.want) {
			t.Errorf("PendingFor(%s) = %v, want %v", tt.user, ids, tt.want)
		}
	}
}

func TestTakeoverByAnotherClickCompletesTheFirstDecision(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, nil)
	f.resumer.SetErr(errors.New("connection reset"))
	_, _ = f.svc.Decide(context.Background(), a.ID, approve("U0123ABC"))
	f.resumer.SetErr(nil)
	f.advance(workflow.DefaultClaimLease)

	reject := workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, DecidedBy: "U0GROUP1"}
	got, err := f.svc.Decide(context.Background(), a.ID, reject)
	if workflow.ErrorCode(err) != workflow.ECONFLICT || !strings.Contains(err.Error(), "already decided by U0123ABC") {
		t.Fatalf("err = %v, want a conflict naming the first decider", err)
	}
	task, _ := f.resumer.Task(a.TaskToken.Reveal())
	if got.Status != workflow.StatusDecided || task.Error != "" || !strings.Contains(task.Output, `"decidedBy":"U0123ABC"`) {
		t.Errorf("status %s, task %+v: want the first decision (approve) resumed", got.Status, task)
	}
}

func TestApproversAreDeduplicatedInOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.request(t, func(r *workflow.Request) {
		r.Approvers = []string{"U0B0000", "S0456DEF", "U0B0000", "U0A0000", "S0456DEF"}
	})
	if got := fmt.Sprint(a.Approvers); got != "[U0B0000 S0456DEF U0A0000]" {
		t.Errorf("approvers = %s", got)
	}
}

func TestPendingForLeavesOutOverdueApprovals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	overdue := f.request(t, func(r *workflow.Request) { r.TimeoutSeconds = 60 })
	open := f.request(t, func(r *workflow.Request) { r.TimeoutSeconds = 3600 })
	f.advance(2 * time.Minute)
	got := must(f.svc.PendingFor(context.Background(), "U0123ABC", 20))
	if len(got) != 1 || got[0].ID != open.ID {
		t.Errorf("pending = %v, want only %s (not the overdue %s)", got, open.ID, overdue.ID)
	}
}

// A user group whose members cannot be looked up (Slack rate-limits the
// lookup) hides only its own requests: the others are listed, and the
// answer says some could not be checked. A click on a request of two
// groups is decided by the group that answers.
func TestFailingGroupLookupHidesOnlyItsGroup(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	limited := errors.New("ratelimited")
	dir := workflowtest.NewDirectory(map[string][]string{"S0GOOD": {"U0MEMBER"}, "S0SLOW": {"U0MEMBER"}})
	dir.SetErr("S0SLOW", limited)
	f.svc = workflow.NewService(f.store, f.resumer, dir)
	f.svc.Now, f.svc.Audit = f.clock, f.audit
	direct := f.request(t, func(r *workflow.Request) { r.Approvers = []string{"U0MEMBER"} })
	f.advance(time.Second)
	good := f.request(t, func(r *workflow.Request) { r.Approvers = []string{"S0GOOD"} })
	f.advance(time.Second)
	slow := f.request(t, func(r *workflow.Request) { r.Approvers = []string{"S0SLOW"} })
	f.advance(time.Second)
	both := f.request(t, func(r *workflow.Request) { r.Approvers = []string{"S0SLOW", "S0GOOD"} })

	got, err := f.svc.PendingFor(context.Background(), "U0MEMBER", 20)
	var unchecked *workflow.UncheckedError
	if !errors.As(err, &unchecked) || fmt.Sprint(unchecked.Groups) != "[S0SLOW]" || !errors.Is(err, limited) {
		t.Fatalf("PendingFor error = %v, want an *UncheckedError naming S0SLOW, wrapping the lookup's error", err)
	}
	if diff := cmp.Diff([]string{direct.ID, good.ID, both.ID}, ids(got)); diff != "" {
		t.Errorf("PendingFor with S0SLOW unchecked (-want +got):\n%s", diff)
	}
	if err := f.svc.CanDecide(context.Background(), both, "U0MEMBER"); err != nil {
		t.Errorf("CanDecide on a request of S0SLOW and S0GOOD = %v, want nil: S0GOOD says yes", err)
	}
	if err := f.svc.CanDecide(context.Background(), slow, "U0MEMBER"); !errors.Is(err, limited) {
		t.Errorf("CanDecide on a request of S0SLOW only = %v, want the lookup's error", err)
	}
	if err := f.svc.CanDecide(context.Background(), good, "U0STRANGER"); workflow.ErrorCode(err) != workflow.EFORBIDDEN {
		t.Errorf("CanDecide of a stranger = %v, want EFORBIDDEN", err)
	}

	dir.SetErr("S0SLOW", nil)
	got, err = f.svc.PendingFor(context.Background(), "U0MEMBER", 20)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{direct.ID, good.ID, slow.ID, both.ID}, ids(got)); diff != "" {
		t.Errorf("PendingFor once S0SLOW answers (-want +got):\n%s", diff)
	}
}
