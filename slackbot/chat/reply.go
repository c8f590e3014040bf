package chat

import (
	"context"
	"fmt"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/workflow"
)

// PostReply posts the short reply of the final approval a (ReplyText) in
// its request's thread, as the bot's updater does after a decision. A Slack
// refusal is an *APIError.
func (p *Poster) PostReply(ctx context.Context, a workflow.Approval) error {
	if !a.Status.Final() || a.MessageTS == "" {
		return fmt.Errorf("approval %s has no final outcome to reply with under a recorded message", a.ID)
	}
	_, _, err := p.api.PostMessageContext(ctx, a.Channel, slack.MsgOptionText(blocks.ReplyText(a), false), slack.MsgOptionTS(a.ThreadRoot()))
	if err != nil {
		return NewAPIError("chat.postMessage", err)
	}
	return nil
}
