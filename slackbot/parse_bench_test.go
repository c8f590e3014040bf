package slackbot

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/workflow"
)

// BenchmarkParseInteraction measures what slack-go's Socket Mode client
// does to every click before the bot sees it: decode the block_actions
// payload, the request message's blocks included.
func BenchmarkParseInteraction(b *testing.B) {
	a := workflow.Approval{
		ID: "ap_benchmark", Channel: "C0LOAD", MessageTS: "1700000000.000100", Title: "Load item 1",
		Approvers: []string{"U0ALICE"}, CreatedAt: time.Now(), Status: workflow.StatusPending,
	}
	msg := blocks.RequestMessage(a)
	blocks, _ := json.Marshal(msg.Blocks)
	payload, _ := json.Marshal(map[string]any{
		"type": "block_actions", "user": map[string]any{"id": "U0ALICE"}, "api_app_id": "A1",
		"container":  map[string]any{"type": "message", "message_ts": a.MessageTS, "channel_id": a.Channel},
		"trigger_id": "1.2.3", "team": map[string]any{"id": "T1"}, "channel": map[string]any{"id": a.Channel},
		"response_url": "http://127.0.0.1:1/response/1",
		"actions": []any{map[string]any{"type": "button", "action_id": "approve", "block_id": a.ID, "value": a.ID,
			"text": map[string]any{"type": "plain_text", "text": "Approve"}, "action_ts": "1700000000.000200"}},
		"message": map[string]any{"type": "message", "ts": a.MessageTS, "text": msg.Text, "blocks": json.RawMessage(blocks), "bot_id": "B1"},
	})
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		var cb slack.InteractionCallback
		if err := json.Unmarshal(payload, &cb); err != nil {
			b.Fatal(err)
		}
	}
}
