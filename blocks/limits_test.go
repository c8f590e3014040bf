package blocks

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// fill repeats pattern to exactly n characters.
func fill(pattern string, n int) string {
	p := []rune(pattern)
	out := make([]rune, n)
	for i := range out {
		out[i] = p[i%len(p)]
	}
	return string(out)
}

// Patterns that grow the most when escaped, JSON-encoded or quoted.
var hostile = map[string]string{
	"ampersands":  "&",
	"comparisons": "a < b && c ",
	"multibyte":   "é漢😀&<>\n",
}

// largestRequests are requests at every limit of workflow.Request.Validate,
// spending the total text budget in different ways.
func largestRequests(t *testing.T, pattern string) map[string]workflow.Request {
	t.Helper()
	base := func() workflow.Request {
		r := workflow.Request{
			TaskToken:      workflow.TaskToken(strings.Repeat("t", workflow.MaxTokenLen)),
			ExecutionARN:   "arn:aws:states:eu-west-1:123456789012:execution:publish:run-1",
			StateName:      fill(pattern, workflow.MaxStateNameLen),
			Channel:        "C0APPROVALS",
			ThreadTS:       "1700000000.00000100",
			RequestedBy:    "U" + strings.Repeat("R", 20),
			Title:          fill(pattern, workflow.MaxTitleLen),
			AllowSkip:      true,
			AllowEdit:      true,
			Confirm:        workflow.Confirmable,
			TimeoutSeconds: workflow.MaxTimeoutSeconds,
		}
		for i := range workflow.MaxApprovers {
			r.Approvers = append(r.Approvers, fmt.Sprintf("S%020d", i))
		}
		for i := range workflow.MaxPresets {
			r.RevisionPresets = append(r.RevisionPresets, fmt.Sprintf("%d%s", i, fill(pattern, workflow.MaxPresetLen-1)))
		}
		return r
	}
	left := func(r workflow.Request) int {
		n := workflow.MaxTotalTextLen - utf8.RuneCountInString(r.Title) - utf8.RuneCountInString(r.Summary)
		for _, f := range r.Fields {
			n -= utf8.RuneCountInString(f.Label) + utf8.RuneCountInString(f.Value)
		}
		for _, d := range r.Drafts {
			n -= utf8.RuneCountInString(d)
		}
		return n
	}
	addFields := func(r *workflow.Request, value int) {
		for i := range workflow.MaxFields {
			r.Fields = append(r.Fields, workflow.Field{Label: fmt.Sprintf("%d%s", i, fill(pattern, workflow.MaxFieldLabelLen-1))})
		}
		for i := range r.Fields {
			r.Fields[i].Value = fill(pattern, min(value, left(*r)))
		}
	}
	addDrafts := func(r *workflow.Request, size int) {
		for range workflow.MaxDrafts {
			if n := min(size, left(*r)); n > 0 {
				r.Drafts = append(r.Drafts, "x"+fill(pattern, n-1))
			}
		}
	}
	drafts := base()
	addDrafts(&drafts, workflow.MaxDraftLen)
	fields := base()
	fields.AllowEdit = false
	addFields(&fields, workflow.MaxFieldValueLen)
	summary := base()
	summary.Summary = fill(pattern, workflow.MaxSummaryLen)
	addDrafts(&summary, workflow.MaxDraftLen)
	spread := base()
	spread.Summary = fill(pattern, 1500)
	addFields(&spread, 500)
	addDrafts(&spread, workflow.MaxDraftLen)
	reqs := map[string]workflow.Request{"drafts": drafts, "fields": fields, "summary": summary, "spread": spread}
	for name, r := range reqs {
		if err := r.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return reqs
}

func approvalOf(r workflow.Request) workflow.Approval {
	return workflow.Approval{
		ID: workflow.NewApprovalID(), TaskToken: r.TaskToken, ExecutionARN: r.ExecutionARN, StateName: r.StateName,
		Channel: r.Channel, ThreadTS: r.ThreadTS, Approvers: r.Approvers, RequestedBy: r.RequestedBy,
		Title: r.Title, Summary: r.Summary, Fields: r.Fields, Drafts: r.Drafts, RevisionPresets: r.RevisionPresets,
		AllowSkip: r.AllowSkip, AllowEdit: r.AllowEdit, Confirm: r.Confirm, Locale: r.Locale,
		CreatedAt: created, Deadline: deadline, Status: workflow.StatusPending,
	}
}

// fillEdit repeats pattern to as long a text as Slack's text input holds.
func fillEdit(pattern string) string {
	var b strings.Builder
	for _, r := range fill(pattern, workflow.MaxEditLen) {
		if workflow.EditLen(b.String()+string(r)) > workflow.MaxEditLen {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// largestDecisions are the decisions valid on a at every limit of
// workflow.Decision.Validate, and the expiries.
func largestDecisions(t *testing.T, a workflow.Approval, pattern string) map[string]workflow.Approval {
	t.Helper()
	approve := workflow.Decision{Action: workflow.ActionApprove, DraftIndex: len(a.Drafts) - 1}
	tests := map[string]workflow.Decision{
		"approved": approve,
		"rejected": {Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, Text: "x" + fill(pattern, workflow.MaxReasonLen-1)},
		"rejected lines": {Action: workflow.ActionReject, DraftIndex: workflow.NoDraft,
			Text: "x" + fill("\n"+pattern, workflow.MaxReasonLen-1)},
		"revise": {Action: workflow.ActionRevise, DraftIndex: workflow.NoDraft, Preset: a.RevisionPresets[9],
			Text: "x" + fill("\n"+pattern, workflow.MaxReasonLen-1)},
		"skip": {Action: workflow.ActionSkip, DraftIndex: workflow.NoDraft},
		"approved edited": {Action: workflow.ActionApprove, DraftIndex: len(a.Drafts) - 1, Edited: fillEdit(pattern),
			Text: "x" + fill(pattern, workflow.MaxReasonLen-1)},
		"withdrawn": {Action: workflow.ActionWithdraw, DraftIndex: workflow.NoDraft, DecidedBy: a.RequestedBy,
			Text: "x" + fill("\n"+pattern, workflow.MaxReasonLen-1)},
	}
	if len(a.Drafts) == 0 {
		delete(tests, "approved edited")
	}
	out := map[string]workflow.Approval{}
	for name, d := range tests {
		if err := d.Validate(a); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = workflowtest.DecidedAs(a, d)
	}
	expired := a
	expired.Status, expired.Decision = workflow.StatusExpired, &workflow.Decision{Action: workflow.ActionExpire, DraftIndex: -1, DecidedAt: decided}
	late := workflowtest.DecidedAs(a, approve)
	late.Status = workflow.StatusExpired
	out["expired"], out["expired late"] = expired, late
	return out
}

// TestLargestInputFitsSlack renders the largest valid requests and
// decisions, full of characters that grow when escaped, with every builder
// and sends them through the fake Slack, which enforces Slack's Block Kit
// limits.
func TestLargestInputFitsSlack(t *testing.T) {
	t.Parallel()
	fs, err := fakeslack.Start(fakeslack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fs.Close)
	api := slack.New(fs.BotToken(), slack.OptionAPIURL(fs.APIURL()))
	// No deadline of its own: the calls are many (two languages, every
	// modal and decision), and on a busy machine under the race detector
	// they take what they take; go test -timeout bounds the test.
	ctx := t.Context()

	for pname, pattern := range hostile {
		var listed []workflow.Approval
		for rname, r := range largestRequests(t, pattern) {
			for _, locale := range workflow.Locales {
				r.Locale = locale
				a := approvalOf(r)
				name := pname + "/" + rname + "/" + locale
				req := RequestMessage(a)
				checkRendered(t, name+"/request", req)
				_, ts, err := api.PostMessageContext(ctx, a.Channel, req.Options()...)
				if err != nil {
					t.Fatalf("%s: post request: %v (%s)", name, err, describeSlackError(err))
				}
				a.MessageTS = ts
				listed = append(listed, a)
				views := []slack.ModalViewRequest{RejectModal(a), ReviseModal(a), ApproveModal(a, workflow.NoDraft), DelegateModal(a), WithdrawModal(a),
					SureModal(a, SureText(a, PresetAction(9)))}
				if EditableDrafts(a) {
					views = append(views, EditPickModal(a))
					for i, d := range a.Drafts {
						if workflow.Editable(d) {
							views = append(views, EditModal(a, i))
						}
					}
				}
				for _, v := range views {
					if _, err := api.OpenViewContext(ctx, fs.NewTrigger("U0APPROVER"), v); err != nil {
						t.Errorf("%s: open %s modal: %v (%s)", name, v.CallbackID, err, describeSlackError(err))
					}
				}
				for dname, decidedA := range largestDecisions(t, a, pattern) {
					out := OutcomeMessage(decidedA)
					checkRendered(t, name+"/"+dname, out)
					if _, _, _, err := api.UpdateMessageContext(ctx, a.Channel, ts, out.Options()...); err != nil {
						t.Errorf("%s/%s: update to outcome: %v (%s)", name, dname, err, describeSlackError(err))
					}
					if _, _, err := api.PostMessageContext(ctx, a.Channel, slack.MsgOptionText(ReplyText(decidedA), false),
						slack.MsgOptionTS(ts)); err != nil {
						t.Errorf("%s/%s: reply: %v (%s)", name, dname, err, describeSlackError(err))
					}
					if _, _, err := api.PostMessageContext(ctx, a.RequestedBy, slack.MsgOptionText(RequesterNotice(decidedA, "https://x.slack.com/archives/C0APPROVALS/p1"), false)); err != nil {
						t.Errorf("%s/%s: requester notice: %v (%s)", name, dname, err, describeSlackError(err))
					}
				}
			}
		}
		for len(listed) < maxListed+3 {
			listed = append(listed, listed[len(listed)%4])
		}
		pending := PendingMessage("", listed, decided, "https://a-rather-long-enterprise-workspace-name.enterprise.slack.com")
		if _, err := api.PostEphemeralContext(ctx, "C0APPROVALS", "U0APPROVER", pending.Options()...); err != nil {
			t.Errorf("%s: pending list: %v (%s)", pname, err, describeSlackError(err))
		}
	}
}

// checkRendered checks what the fake cannot see: escaped text is never cut
// inside an entity or a rune, and a message whose text was cut says so.
func checkRendered(t *testing.T, name string, m Message) {
	t.Helper()
	var blocks []struct {
		Type    string `json:"type"`
		BlockID string `json:"block_id"`
		Text    struct {
			Text string `json:"text"`
		} `json:"text"`
	}
	if err := json.Unmarshal(mustJSON(t, m.Blocks), &blocks); err != nil {
		t.Fatal(err)
	}
	cut, noted := false, false
	for _, b := range blocks {
		text := b.Text.Text
		if !utf8.ValidString(text) {
			t.Errorf("%s: block %q is not valid UTF-8", name, b.BlockID)
		}
		if strings.HasPrefix(b.BlockID, "draft_") || b.BlockID == "outcome" {
			bare := strings.NewReplacer("&amp;", "", "&lt;", "", "&gt;", "").Replace(text)
			if strings.Contains(bare, "&") {
				t.Errorf("%s: block %q has a broken entity: …%s", name, b.BlockID, text[max(0, len(text)-40):])
			}
		}
		if strings.HasPrefix(b.BlockID, "draft_") && strings.HasSuffix(text, ellipsis) {
			cut = true
		}
		noted = noted || b.BlockID == "shortened"
	}
	if cut && !noted {
		t.Errorf("%s: text was cut but the message does not say so", name)
	}
	if n := blocksLen(m.Blocks...); n > maxBlocksLen {
		t.Errorf("%s: blocks take %d characters of JSON, over the %d budget", name, n, maxBlocksLen)
	}
}

func describeSlackError(err error) string {
	var resp slack.SlackErrorResponse
	if errors.As(err, &resp) {
		return strings.Join(resp.ResponseMetadata.Messages, "; ")
	}
	return ""
}
