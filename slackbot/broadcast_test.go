package slackbot

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/workflow"
)

// broadcast matches a special mention that notifies a channel or a group.
var broadcast = regexp.MustCompile(`<!(?:channel|here|everyone|group|subteam\^[^>|]*)(?:\|[^>]*)?>`)

// authored is every form of broadcast an author may write.
const authored = "<!channel> <!here> <!here|here> <!everyone> <!group> <!subteam^S0AUTHOR> <!subteam^S0AUTHOR|@team> <!channel|channel>"

// TestAuthorBroadcastsNeverReachSlack runs every path that carries author
// text (request, outcome, thread reply, modals, private answers, the
// pending list) and reads every payload the bot sent Slack: no broadcast
// reaches it except the bot's own mention of the approvers' group.
func TestAuthorBroadcastsNeverReachSlack(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	req := func(title string) workflow.Request {
		return workflow.Request{
			Title:           title + " " + authored,
			Summary:         "*Heads up* " + authored + " see <https://example.com/post|the post> by <@" + approver + "> in <#" + channel + ">",
			Fields:          workflow.Fields{{Label: "Ping <!here> <!subteam^S0AUTHOR|@team>", Value: authored}},
			Drafts:          []string{"Draft " + authored, "Other draft"},
			RevisionPresets: []string{"Tell <!here>", "Shorter <!subteam^S0AUTHOR|@team>"},
			AllowSkip:       true,
		}
	}
	revised, rejected, approved, pending := h.request(req("Revise")), h.request(req("Reject")), h.request(req("Approve")), h.request(req("Pending"))

	m := h.message(pending)
	for _, want := range []string{`<https://example.com/post|the post>`, "<@" + approver + ">", "<#" + channel + ">", "*Heads up*", "&lt;!here|here&gt;"} {
		if !strings.Contains(strings.Join(texts(t, string(m.Blocks)), "\n"), want) {
			t.Errorf("the request message lost %q", want)
		}
	}

	h.click(approver, revised, "revise")
	h.waitFor("revise modal", func() bool { return len(h.slack.Views(approver)) == 1 })
	h.submit(approver, h.slack.Views(approver)[0].ID, map[string]map[string]any{
		"preset":   {"preset": map[string]any{"type": "radio_buttons", "selected_option": map[string]any{"value": "Tell <!here>"}}},
		"feedback": {"feedback": map[string]any{"type": "plain_text_input", "value": "More for " + authored}},
	})
	h.click(approver, rejected, "reject")
	h.waitFor("reject modal", func() bool { return len(h.slack.Views(approver)) == 2 })
	h.submit(approver, h.slack.Views(approver)[1].ID, map[string]map[string]any{
		"reason": {"reason": map[string]any{"type": "plain_text_input", "value": "No, " + authored}},
	})
	h.click(approver2, pending, "revise")
	h.waitFor("revise modal for a value Slack would not send", func() bool { return len(h.slack.Views(approver2)) == 1 })
	h.submit(approver2, h.slack.Views(approver2)[0].ID, map[string]map[string]any{
		"preset": {"preset": map[string]any{"type": "radio_buttons", "selected_option": map[string]any{"value": "<!channel>"}}},
	})
	h.waitFor("refused", func() bool { return len(h.ephemeralsTo(approver2)) == 1 })
	h.click(approver, approved, "approve_draft_0")
	h.click(outsider, pending, "approve_draft_1")
	for _, a := range []workflow.Approval{revised, rejected, approved} {
		h.waitFor("outcome and reply", func() bool {
			return h.outcomeShown(a, "by \\u003c@"+approver) && len(h.slack.Replies(a.Channel, a.MessageTS)) == 1
		})
	}
	if out := output(t, h.task(revised)); out["preset"] != "Tell <!here>" || out["feedback"] != "Tell <!here>\nMore for "+authored {
		t.Errorf("the execution did not get the feedback as written: %v", out)
	}
	if got := h.task(rejected); got.Cause != "No, "+authored {
		t.Errorf("the execution did not get the reason as written: %q", got.Cause)
	}
	h.waitFor("refusal", func() bool { return len(h.ephemeralsTo(outsider)) == 1 })
	for _, args := range []string{"pending", "help"} {
		if _, err := h.slack.Slash(approver, channel, "/approvals", args); err != nil {
			t.Fatal(err)
		}
	}
	h.waitFor("command answers", func() bool { return len(h.slack.ResponsePosts()) == 2 })
	var answers []string
	for _, p := range h.slack.ResponsePosts() {
		answers = append(answers, texts(t, string(p.Body))...)
	}
	if !strings.Contains(strings.Join(answers, "\n"), "Pending &lt;!channel&gt;") {
		t.Errorf("the pending list does not show the title literally: %q", answers)
	}

	var sent []string
	for _, method := range []string{"chat.postMessage", "chat.update", "chat.postEphemeral", "views.open", "views.update"} {
		for _, p := range h.slack.Params(method) {
			if p.Has("link_names") || p.Has("parse") {
				t.Errorf("%s sent with link_names or parse: %v", method, p)
			}
			for _, v := range p {
				sent = append(sent, v...)
			}
		}
	}
	for _, p := range h.slack.ResponsePosts() {
		sent = append(sent, string(p.Body))
	}
	for _, a := range h.slack.Acks() {
		sent = append(sent, string(a.Payload))
	}
	own := "<!subteam^" + group + ">"
	for _, payload := range sent {
		for _, text := range texts(t, payload) {
			for _, mention := range broadcast.FindAllString(text, -1) {
				if mention != own {
					t.Errorf("author broadcast %s reached Slack in %q", mention, text)
				}
			}
		}
	}
	if !strings.Contains(strings.Join(sent, "\n"), own) {
		t.Error("the bot's own mention of the approvers' group is gone")
	}
}

// texts is every string Slack shows in payload, which may be JSON (a block
// list, a view, a response) or plain text. The value of an option or a
// button is an identifier sent back to the app, never shown.
func texts(t *testing.T, payload string) []string {
	t.Helper()
	var v any
	if json.Unmarshal([]byte(payload), &v) != nil {
		return []string{payload}
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, texts(t, v)...)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				if _, shown := v["text"]; k == "value" && shown {
					continue
				}
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

func (h *harness) submit(user, viewID string, values map[string]map[string]any) {
	h.t.Helper()
	env, err := h.slack.Submit(user, viewID, values)
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.slack.WaitAck(context.Background(), env); err != nil {
		h.t.Fatal(err)
	}
}
