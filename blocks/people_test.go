package blocks

import (
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// inLocale is a with its locale set.
func inLocale(a workflow.Approval, locale string) workflow.Approval {
	a.Locale = locale
	return a
}

// everything is a request using every people's field: drafts to edit,
// confirm dialogs on every action, a requester.
func everything() workflow.Approval {
	a := workflowtest.WithDrafts(workflowtest.SampleApproval())
	a.AllowEdit, a.Confirm, a.NotifyRequester = true, workflow.Confirmable, true
	a.Policy.AllowDelegation = true
	return a
}

// peopleViews are what people see of the sample requests, for the golden
// files of each language: the request messages, every outcome, the
// modals, the thread notes, the requester's notice, /approvals and the
// App Home.
func peopleViews(locale string) map[string]any {
	a := inLocale(everything(), locale)
	edited := workflowtest.DecidedAs(a, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, Edited: "Second draft, with the date fixed", Text: "fixed the date"})
	withdrawn := workflowtest.DecidedAs(a, workflow.Decision{Action: workflow.ActionWithdraw, DraftIndex: workflow.NoDraft, Text: "Wrong week"})
	withdrawn.Decision.DecidedBy = "U0REQ"
	long := a
	long.Drafts = []string{a.Drafts[0], strings.Repeat("長", workflow.MaxEditLen+1)}
	many := withEverything(inLocale(workflowtest.SampleApproval(), locale))
	many.Confirm = workflow.Confirmable
	quorum := inLocale(quorumApproval(), locale)
	quorum.AllowEdit = true
	quorum.Votes = append(quorum.Votes, workflow.Vote{UserID: "U0EEE", DraftIndex: 1, Edited: "Second draft, edited", At: decided})
	entries := []workflow.HistoryEntry{
		{Event: workflow.AuditEvent{Type: workflow.EventDecided, Action: workflow.ActionApprove, DraftIndex: ptr(1), Edited: true, At: decided}, Title: a.Title, Channel: "C0123", MessageTS: "1700000000.000100"},
		{Event: workflow.AuditEvent{Type: workflow.EventDecided, Action: workflow.ActionWithdraw, At: created}, Title: "Another", Channel: "C0123", MessageTS: "1700000000.000200"},
	}
	return map[string]any{
		"request_everything":    RequestMessage(a),
		"request_many":          RequestMessage(many),
		"request_not_editable":  RequestMessage(long),
		"request_quorum_edits":  RequestMessage(quorum),
		"outcome_approved_edit": OutcomeMessage(edited),
		"outcome_withdrawn":     OutcomeMessage(withdrawn),
		"outcome_rejected":      OutcomeMessage(workflowtest.DecidedAs(a, workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, Text: "Not this week"})),
		"outcome_revise":        OutcomeMessage(workflowtest.DecidedAs(a, workflow.Decision{Action: workflow.ActionRevise, DraftIndex: workflow.NoDraft, Preset: "Shorter"})),
		"outcome_expired":       OutcomeMessage(func() workflow.Approval { x := a; x.Status = workflow.StatusExpired; return x }()),
		"outcome_aborted":       OutcomeMessage(workflowtest.CancelledAs(a, workflow.Ended(workflow.Execution{Status: workflow.ExecutionAborted, StoppedAt: stopped}))),
		"modal_edit":            EditModal(a, 1),
		"modal_edit_pick":       EditPickModal(a),
		"modal_withdraw":        WithdrawModal(a),
		"modal_sure":            SureModal(a, SureText(a, PresetAction(0))),
		"modal_approve":         ApproveModal(a, workflow.NoDraft),
		"modal_reject":          RejectModal(a),
		"modal_revise":          ReviseModal(a),
		"modal_delegate":        DelegateModal(a),
		"notes": []string{
			ReminderNotice(quorum), EscalationNotice(quorum), DelegationNotice(quorum, quorum.Delegations[0]),
			RequesterNotice(edited, "https://acme.slack.com/archives/C0123/p1700000000000100"),
			RequesterNotice(withdrawn, ""),
			VoteText(quorum, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1}),
			LateText(edited, nil), WhoMayDecide(a),
		},
		"pending": PendingMessage(locale, []workflow.Approval{a}, decided, "https://acme.slack.com/"),
		"history": HistoryMessage(locale, entries, "https://acme.slack.com/"),
		"help":    HelpMessage(locale, "/approvals"),
		"home": HomeView(Home{User: "U0AAA", Pending: []workflow.Approval{a}, History: entries, Requested: []workflow.Approval{inLocale(workflowtest.SampleApproval(), locale)},
			Base: "https://acme.slack.com/", Now: decided.Add(3 * time.Hour), Locale: locale}),
	}
}

func ptr[T any](v T) *T { return &v }

// The golden files of each language: testdata/<locale>/*.json.
func TestPeopleGolden(t *testing.T) {
	for _, locale := range workflow.Locales {
		for name, v := range peopleViews(locale) {
			t.Run(locale+"/"+name, func(t *testing.T) { golden(t, locale+"/"+name, v) })
		}
	}
}

// A request has at most MaxButtons buttons and one overflow menu of at
// most MaxOverflowOptions options, whatever it offers.
func TestShortMessage(t *testing.T) {
	for _, locale := range workflow.Locales {
		for name, v := range peopleViews(locale) {
			m, ok := v.(Message)
			if !ok {
				continue
			}
			for _, b := range m.Blocks {
				act, ok := b.(*slack.ActionBlock)
				if !ok {
					continue
				}
				buttons, overflows := 0, 0
				for _, e := range act.Elements.ElementSet {
					switch e := e.(type) {
					case *slack.ButtonBlockElement:
						buttons++
						if n := len([]rune(e.Text.Text)); n > maxButtonLen {
							t.Errorf("%s/%s: button text of %d characters", locale, name, n)
						}
					case *slack.OverflowBlockElement:
						overflows++
						if len(e.Options) > MaxOverflowOptions {
							t.Errorf("%s/%s: overflow of %d options", locale, name, len(e.Options))
						}
					}
				}
				if buttons > MaxButtons || overflows > 1 {
					t.Errorf("%s/%s: %d buttons and %d overflow menus", locale, name, buttons, overflows)
				}
			}
		}
	}
}

// Buttons of the actions in confirm carry a dialog naming what happens;
// the others none.
func TestConfirmDialogs(t *testing.T) {
	a := workflowtest.WithDrafts(workflowtest.SampleApproval())
	a.Confirm = []string{"approve", "revise"}
	var confirmed, plain []string
	for _, e := range actionsBlock(a).Elements.ElementSet {
		if b, ok := e.(*slack.ButtonBlockElement); ok {
			if b.Confirm != nil {
				confirmed = append(confirmed, b.ActionID+": "+b.Confirm.Text.Text)
			} else {
				plain = append(plain, b.ActionID)
			}
		}
	}
	want := []string{
		"approve_draft_0: Publishes draft 1 now: the workflow continues with it.",
		"approve_draft_1: Publishes draft 2 now: the workflow continues with it.",
		"preset_0: Sends “Shorter” back now: the workflow makes a new draft.",
		"preset_1: Sends “More detail” back now: the workflow makes a new draft.",
	}
	if strings.Join(confirmed, "\n") != strings.Join(want, "\n") || strings.Join(plain, ",") != "reject" {
		t.Errorf("confirmed %q, plain %q", confirmed, plain)
	}
	if got := SureText(a, ActionSkip); got != "" {
		t.Errorf("skip is not in confirm, yet SureText = %q", got)
	}
	a.Confirm = append(a.Confirm, "skip")
	if got := SureText(a, ActionSkip); !strings.Contains(got, "Skips this request now") {
		t.Errorf("SureText(skip) = %q", got)
	}
}
