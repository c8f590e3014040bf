package workflow_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

func TestPeopleFieldsValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		edit    func(map[string]any)
		wantErr string
	}{
		{"all valid", func(p map[string]any) {
			p["allowEdit"], p["notifyRequester"], p["confirm"], p["locale"] = true, true, []string{"approve", "reject", "skip", "revise", "withdraw"}, "ja"
		}, ""},
		{"allowEdit without drafts", func(p map[string]any) { p["allowEdit"] = true; delete(p, "drafts") }, "allowEdit needs drafts"},
		{"allowEdit not a boolean", func(p map[string]any) { p["allowEdit"] = "yes" }, `field "allowEdit" must be true or false, not a string`},
		{"notifyRequester without requester", func(p map[string]any) { p["notifyRequester"] = true; delete(p, "requestedBy") }, "notifyRequester true needs requestedBy"},
		{"notifyRequester false without requester", func(p map[string]any) { p["notifyRequester"] = false; delete(p, "requestedBy") }, ""},
		{"unknown locale", func(p map[string]any) { p["locale"] = "fr" }, `locale must be "en" or "ja", not "fr"`},
		{"locale in another case", func(p map[string]any) { p["locale"] = "JA" }, `locale must be "en" or "ja", not "JA"`},
		{"unresolved locale", func(p map[string]any) { p["locale"] = "$.locale" }, "locale"},
		{"confirm unknown action", func(p map[string]any) { p["confirm"] = []string{"approved"} }, `confirm holds "approved"; it may hold only`},
		{"confirm repeated", func(p map[string]any) { p["confirm"] = []string{"reject", "reject"} }, `confirm repeats "reject"`},
		{"confirm skip without allowSkip", func(p map[string]any) { p["confirm"] = []string{"skip"}; p["allowSkip"] = false }, `confirm "skip" needs allowSkip true`},
		{"confirm revise without presets", func(p map[string]any) { p["confirm"] = []string{"revise"}; delete(p, "revisionPresets") }, `confirm "revise" needs revisionPresets`},
		{"confirm withdraw without requester", func(p map[string]any) { p["confirm"] = []string{"withdraw"}; delete(p, "requestedBy") }, `confirm "withdraw" needs requestedBy`},
		{"Confirm misspelt", func(p map[string]any) { p["Confirm"] = []string{"reject"} }, `did you mean "confirm"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := validPayload()
			tt.edit(p)
			_, err := workflow.ParseRequest(encode(t, p))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("ParseRequest: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("ParseRequest error = %v, want it to contain %q", err, tt.wantErr)
			case err != nil && workflow.ErrorCode(err) != workflow.EINVALID:
				t.Fatalf("code %q, want EINVALID", workflow.ErrorCode(err))
			}
		})
	}
}

func TestRequestKeepsPeopleFields(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	off := false
	a := f.request(t, func(r *workflow.Request) {
		r.AllowEdit, r.Confirm, r.Locale = true, []string{"approve"}, "ja"
	})
	if !a.AllowEdit || !a.NotifyRequester || a.Locale != "ja" || !a.Confirms("approve") || a.Confirms("reject") {
		t.Fatalf("approval lost its people fields: %+v", a)
	}
	quiet := f.request(t, func(r *workflow.Request) { r.NotifyRequester = &off })
	if quiet.NotifyRequester {
		t.Fatal("notifyRequester false still notifies")
	}
	nobody := f.request(t, func(r *workflow.Request) { r.RequestedBy = "" })
	if nobody.NotifyRequester {
		t.Fatal("a request without requester notifies somebody")
	}
}

func TestEditAndApprove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	edited := "second draft, with one word fixed"
	tests := []struct {
		name         string
		allowEdit    bool
		edited       string
		wantErr      workflow.Why
		wantSelected string
		wantEdited   any // nil: absent
	}{
		{"edited", true, edited, "", edited, true},
		{"unchanged text is no edit", true, "second draft", "", "second draft", false},
		{"approved as offered", true, "", "", "second draft", false},
		{"edit not allowed", false, edited, workflow.WhyNoEdit, "", nil},
		{"empty edit", true, "  \n ", workflow.WhyEditEmpty, "", nil},
		{"too long for Slack", true, strings.Repeat("😀", 1501), workflow.WhyEditTooLong, "", nil},
		{"without edit field", false, "", "", "second draft", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			a := f.request(t, func(r *workflow.Request) { r.AllowEdit = tt.allowEdit })
			d := approve("U0123ABC")
			d.DraftIndex, d.Edited = 1, tt.edited
			got, err := f.svc.Decide(ctx, a.ID, d)
			if tt.wantErr != "" {
				if why, _ := workflow.ErrorWhy(err); why != tt.wantErr {
					t.Fatalf("Decide error %v (why %q), want %q", err, why, tt.wantErr)
				}
				if got.Status != workflow.StatusPending {
					t.Fatalf("a refused edit changed the approval: %s", got.Status)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out := output(t, f, a)
			if out["selectedDraft"] != tt.wantSelected {
				t.Errorf("selectedDraft %q, want %q", out["selectedDraft"], tt.wantSelected)
			}
			if out["edited"] != tt.wantEdited {
				t.Errorf("edited %v, want %v", out["edited"], tt.wantEdited)
			}
			if tt.wantEdited == true && out["originalDraft"] != "second draft" {
				t.Errorf("originalDraft %v, want the draft as offered", out["originalDraft"])
			}
			if tt.wantEdited != true && out["originalDraft"] != nil {
				t.Errorf("originalDraft %v on an approval without edit", out["originalDraft"])
			}
		})
	}
}

// With a quorum, an edited approval counts only towards the same text.
func TestEditsCountOnlyTowardsTheEditedText(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	a := f.request(t, func(r *workflow.Request) { quorum(2)(r); r.AllowEdit = true })
	edit := func(user, text string) workflow.Decision {
		d := approve(user)
		d.DraftIndex, d.Edited = 0, text
		return d
	}
	if got := must(f.svc.Decide(ctx, a.ID, edit("U0123ABC", "first draft, fixed"))); got.Status != workflow.StatusPending {
		t.Fatalf("one vote decided: %s", got.Status)
	}
	if got := must(f.svc.Decide(ctx, a.ID, edit("U0456DEF", ""))); got.Status != workflow.StatusPending {
		t.Fatalf("an approval of the draft as offered added up with an edit: %s", got.Status)
	}
	got := must(f.svc.Decide(ctx, a.ID, edit("U0789GHI", "first draft, fixed")))
	if got.Status != workflow.StatusDecided {
		t.Fatalf("two approvals of the same edit did not decide: %s", got.Status)
	}
	out := output(t, f, a)
	if out["selectedDraft"] != "first draft, fixed" || out["edited"] != true || out["originalDraft"] != "first draft" {
		t.Errorf("output %v", out)
	}
	var who []string
	for _, v := range out["approvals"].([]any) {
		who = append(who, v.(map[string]any)["userId"].(string))
	}
	if diff := cmp.Diff([]string{"U0123ABC", "U0789GHI"}, who); diff != "" {
		t.Errorf("approvals (-want +got):\n%s", diff)
	}
}

func TestWithdraw(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name, user, reason string
		wantCode           string
		wantCause          string
	}{
		{"by the requester, with a reason", "U0999XYZ", "  Wrong date  ", "", "Withdrawn by U0999XYZ: Wrong date"},
		{"by the requester, without a reason", "U0999XYZ", "", "", "Withdrawn by U0999XYZ without a reason."},
		{"by an approver", "U0123ABC", "", workflow.EFORBIDDEN, ""},
		{"reason too long", "U0999XYZ", strings.Repeat("x", workflow.MaxReasonLen+1), workflow.EINVALID, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			a := f.request(t, nil)
			got, err := f.svc.Withdraw(ctx, a.ID, tt.user, tt.reason, workflow.MessageRef{})
			if tt.wantCode != "" {
				if workflow.ErrorCode(err) != tt.wantCode || got.Status != workflow.StatusPending {
					t.Fatalf("Withdraw: %v (status %s), want %s and nothing changed", err, got.Status, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			task, _ := f.resumer.Task(a.TaskToken.Reveal())
			if got.Status != workflow.StatusDecided || got.Decision.Action != workflow.ActionWithdraw ||
				task.Error != workflow.ErrorWithdrawn || task.Cause != tt.wantCause {
				t.Fatalf("status %s, task %+v; want decided, Withdrawn, %q", got.Status, task, tt.wantCause)
			}
			if _, err := f.svc.Withdraw(ctx, a.ID, tt.user, "", workflow.MessageRef{}); workflow.ErrorCode(err) != workflow.ECONFLICT {
				t.Errorf("second withdrawal: %v, want ECONFLICT", err)
			}
		})
	}
}

func TestRequesterNoticeIsClaimedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	a := f.request(t, nil)
	if _, ok, err := f.svc.ClaimRequesterNotice(ctx, a.ID); err != nil || ok {
		t.Fatalf("a pending request's notice claimed: %v %v", ok, err)
	}
	must(f.svc.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, DecidedBy: "U0123ABC"}))
	if _, ok, err := f.svc.ClaimRequesterNotice(ctx, a.ID); err != nil || !ok {
		t.Fatalf("first claim: %v %v", ok, err)
	}
	f.advance(1)
	if _, ok, err := f.svc.ClaimRequesterNotice(ctx, a.ID); err != nil || ok {
		t.Fatalf("second claim: %v %v", ok, err)
	}
}

func TestRequestedByListsOpenRequestsOfThePerson(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	first := f.request(t, nil)
	f.advance(1)
	second := f.request(t, nil)
	f.request(t, func(r *workflow.Request) { r.RequestedBy = "U0OTHER1" })
	decided := f.request(t, nil)
	must(f.svc.Decide(ctx, decided.ID, approve("U0123ABC")))
	got := must(f.svc.RequestedBy(ctx, "U0999XYZ", 10))
	var ids []string
	for _, a := range got {
		ids = append(ids, a.ID)
	}
	if diff := cmp.Diff([]string{first.ID, second.ID}, ids); diff != "" {
		t.Errorf("RequestedBy (-want +got):\n%s", diff)
	}
}

// Each decision's audit event carries what the person saw and decided,
// so the export alone answers who approved exactly what.
func TestDecisionEventsStandAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	long := strings.Repeat("長", workflow.MaxRecordedTextBytes/3+1)
	a := f.request(t, func(r *workflow.Request) { r.AllowEdit, r.Drafts = true, []string{long, "second draft"} })
	d := approve("U0123ABC")
	d.DraftIndex, d.Edited, d.Text = 1, "second draft, fixed", "typo"
	must(f.svc.Decide(ctx, a.ID, d))
	var rec *workflow.DecisionRecord
	for _, e := range f.audit.Events() {
		if e.ApprovalID == a.ID && e.Type == workflow.EventDecided {
			rec = e.Record
			if !e.Edited || e.Comment != "typo" || e.Actor != "U0123ABC" {
				t.Errorf("decided event %+v", e)
			}
		}
	}
	if rec == nil {
		t.Fatal("the decided event has no record")
	}
	if rec.Title != a.Title || rec.Summary != a.Summary || len(rec.Fields) != 1 || rec.Fields[0].Label != "Theme" {
		t.Errorf("record lost what was shown: %+v", rec)
	}
	if !rec.Drafts[0].Omitted || rec.Drafts[0].Text != "" || rec.Drafts[0].Length != len([]rune(long)) || len(rec.Drafts[0].SHA256) != 64 {
		t.Errorf("a draft over %d bytes: %+v, want its hash and length only", workflow.MaxRecordedTextBytes, rec.Drafts[0])
	}
	if rec.Drafts[1].Text != "second draft" || rec.Drafts[1].Omitted {
		t.Errorf("short draft %+v, want it in full", rec.Drafts[1])
	}
	if rec.Decided == nil || rec.Decided.Text != "second draft, fixed" {
		t.Errorf("decided %+v, want the edited text", rec.Decided)
	}
	if want := workflow.RecordOf("second draft, fixed"); rec.Decided.SHA256 != want.SHA256 {
		t.Errorf("decided hash %s, want %s", rec.Decided.SHA256, want.SHA256)
	}
}
