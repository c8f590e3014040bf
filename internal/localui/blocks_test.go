package localui

import (
	"encoding/json"
	"flag"
	stdhtml "html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares html, one element start per line, with testdata/name.html.
func golden(t *testing.T, name, html string) {
	t.Helper()
	got := regexp.MustCompile(`(<(?:div|h3|hr|button|label|footer|header|blockquote|pre|span class="b-|form|textarea|input|select|option))`).ReplaceAllString(html, "\n$1")
	got = strings.TrimPrefix(got, "\n") + "\n"
	path := filepath.Join("testdata", name+".html")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

var (
	decided  = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	deadline = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
)

// request is an approval as the notifier posts it for the shipped publish workflow.
func request() workflow.Approval {
	return workflow.Approval{
		ID:              "ap_sample",
		ExecutionARN:    "arn:aws:states:us-east-1:123456789012:execution:publish-with-approval:run-1",
		Channel:         "C0PUBLISH",
		Approvers:       []string{"U0ALICE", "S0EDITORS"},
		RequestedBy:     "U0BOB",
		Title:           "Publish: Step Functions callbacks (round 1 of 3)",
		Summary:         "*Two* drafts about <https://example.com|callbacks>",
		Fields:          []workflow.Field{{Label: "Topic", Value: "Step Functions"}, {Label: "Words <&>", Value: "1200"}},
		Drafts:          []string{"First draft <!channel>", "Second draft"},
		RevisionPresets: []string{"Shorter", "More detail"},
		AllowSkip:       true,
		CreatedAt:       decided.Add(-time.Hour),
		Deadline:        deadline,
		Status:          workflow.StatusPending,
	}
}

// japanese is a in Japanese.
func japanese(a workflow.Approval) workflow.Approval {
	a.Locale = workflow.LocaleJapanese
	a.Title = "公開: Step Functions のコールバック（全 3 回中 1 回目）"
	a.Drafts = []string{"人の判断を待てるワークフロー。", "タスクトークンとハートビートの詳しい解説。"}
	a.RevisionPresets = []string{"もっと短く", "エンジニア以外にも分かるように"}
	return a
}

// everything is a with five drafts, ten presets, edits and every confirm dialog.
func everything(a workflow.Approval) workflow.Approval {
	a.Drafts = []string{"d1", "d2", "d3", "d4", "d5"}
	a.RevisionPresets = []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10"}
	a.AllowEdit, a.Confirm = true, workflow.Confirmable
	a.Policy.AllowDelegation = true
	return a
}

func decidedAs(a workflow.Approval, d workflow.Decision) workflow.Approval {
	d.DecidedBy, d.DecidedAt = "U0ALICE", decided
	a.Status, a.Decision, a.ClosedAt = workflow.StatusDecided, &d, decided
	return a
}

func blocksJSON(t *testing.T, blocks []slack.Block) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(blocks)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The messages the product posts, rendered for a person: golden files to read, and the buttons
// the fake Slack would click.
func TestProductMessages(t *testing.T) {
	t.Parallel()
	tests := map[string]blocks.Message{
		"request":         blocks.RequestMessage(request()),
		"outcome_revise":  blocks.OutcomeMessage(decidedAs(request(), workflow.Decision{Action: workflow.ActionRevise, DraftIndex: workflow.NoDraft, Preset: "Shorter", Text: "Cut the intro.\n> Keep the end."})),
		"outcome_approve": blocks.OutcomeMessage(decidedAs(request(), workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1})),
		"outcome_reject":  blocks.OutcomeMessage(decidedAs(request(), workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, Text: "Not <b>now</b>"})),
		"request_ja":      blocks.RequestMessage(japanese(request())),
		"request_many":    blocks.RequestMessage(everything(request())),
		"outcome_edited_ja": blocks.OutcomeMessage(decidedAs(japanese(request()),
			workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, Edited: "Second draft, one word fixed"})),
	}
	for name, msg := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			blocks := blocksJSON(t, msg.Blocks)
			html := testRenderer("U0ALICE").message(blocks, msg.Text)
			golden(t, name, html)
			buttons := regexp.MustCompile(`<button type="button" class="[^"]*" data-block-id="([^"]*)" data-action-id="([^"]*)" data-value="([^"]*)"(?: data-confirm="([^"]*)")?[^>]*>([^<]*)</button>`).FindAllStringSubmatch(html, -1)
			var got []fakeslack.ButtonRef
			for _, b := range buttons {
				got = append(got, fakeslack.ButtonRef{BlockID: b[1], ActionID: b[2], Value: b[3], Confirm: stdhtml.UnescapeString(b[4]), Text: b[5]})
			}
			var want []fakeslack.ButtonRef
			for _, b := range fakeslack.ButtonActions(blocks) {
				b.Style = ""
				want = append(want, b)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("buttons (-fake Slack's +page's):\n%s", diff)
			}
		})
	}
}

// Whatever the workflow puts in a request is text on the page, never markup.
func TestRequestTextIsEscaped(t *testing.T) {
	t.Parallel()
	a := request()
	a.Title = `<script>alert(1)</script>`
	a.Summary = `"><img src=x onerror=alert(1)> <https://x.example/"onclick="alert(1)|link> <javascript:alert(1)|js>`
	a.Fields = []workflow.Field{{Label: `<iframe>`, Value: `<style>body{display:none}</style>`}}
	a.Drafts = []string{"</div><script>alert(2)</script>"}
	msg := blocks.RequestMessage(a)
	html := testRenderer("").message(blocksJSON(t, msg.Blocks), msg.Text)
	for _, bad := range []string{"<script", "<img", "<iframe", "<style", `"onclick`, `href="javascript`} {
		if strings.Contains(strings.ToLower(html), bad) {
			t.Errorf("the page's HTML holds %s:\n%s", bad, html)
		}
	}
}

func TestBlocksTheProductDoesNotPost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, blocks, text string
		want               []string
	}{
		{"no blocks: the text", ``, "*hi* <@U0BOB>", []string{`<div class="b-text"><strong>hi</strong> <span class="mention" data-user="U0BOB">@bob</span></div>`}},
		{"unreadable blocks: the text", `{"not": "an array"}`, "fallback", []string{"fallback"}},
		{"unknown block", `[{"type":"rich_text","elements":[]}]`, "", []string{"[rich_text block not shown by the stand-in]"}},
		{"image with its alt text", `[{"type":"image","image_url":"https://x.example/a.png","alt_text":"a chart"}]`, "", []string{"🖼 a chart", `title="https://x.example/a.png"`}},
		{"section with a button accessory", `[{"type":"section","text":{"type":"plain_text","text":"a\nb"},"accessory":{"type":"button","text":{"type":"plain_text","text":"Go"},"action_id":"go","url":"https://x.example","confirm":{"title":{"type":"plain_text","text":"Sure?"},"text":{"type":"plain_text","text":"Really."}}}}]`, "",
			[]string{"a<br>b", `data-block-id="fakeslack-block-0" data-action-id="go" data-value="" data-url="https://x.example" data-confirm="Really." data-confirm-title="Sure?" data-confirm-yes="Yes" data-confirm-no="Cancel"`}},
		{"a select that works", `[{"type":"actions","block_id":"ap_1","elements":[{"type":"static_select","action_id":"pick","placeholder":{"type":"plain_text","text":"Pick"},"options":[{"text":{"type":"plain_text","text":"Draft 1"},"value":"0"}]}]}]`, "",
			[]string{`<select class="b-select" data-block-id="ap_1" data-menu-id="pick"><option value="" selected disabled>Pick</option><option value="0">Draft 1</option></select>`}},
		{"an overflow menu that works", `[{"type":"actions","block_id":"ap_1","elements":[{"type":"overflow","action_id":"more","options":[{"text":{"type":"plain_text","text":"Skip"},"value":"skip"}]}]}]`, "",
			[]string{`<button type="button" role="menuitem" class="b-menu-item" data-block-id="ap_1" data-menu-id="more" data-option="skip">Skip</button>`, `class="btn b-overflow-toggle"`}},
		{"a datepicker shown, not working", `[{"type":"actions","elements":[{"type":"datepicker","placeholder":{"type":"plain_text","text":"Day"}}]}]`, "", []string{`<span class="btn disabled" title="datepicker: not interactive in the stand-in">Day ▾</span>`}},
		{"context in its old string form", `[{"type":"context","elements":[{"type":"mrkdwn","text":"*a*"},{"type":"plain_text","text":"*b*"}]}]`, "", []string{"<strong>a</strong>", "*b*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := testRenderer("").message(json.RawMessage(tt.blocks), tt.text)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %s\nwant it to hold %s", got, w)
				}
			}
		})
	}
}
