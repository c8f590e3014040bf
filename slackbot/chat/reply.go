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

// PostRequesterNotice tells the requester of the final approval a, in a
// direct message from the app, what became of their request: one line
// (blocks.RequesterNotice) with a link to the request message
// (chat.getPermalink; without it when Slack gives none). The caller claims
// the notice first (workflow.Service.ClaimRequesterNotice), so it is sent
// at most once. A Slack refusal is an *APIError.
func (p *Poster) PostRequesterNotice(ctx context.Context, a workflow.Approval) error {
	if !a.Status.Final() || !workflow.IsUserID(a.RequestedBy) {
		return fmt.Errorf("approval %s has no outcome to tell a requester", a.ID)
	}
	link := ""
	if a.MessageTS != "" {
		link, _ = p.Permalink(ctx, a.Channel, a.MessageTS) // the notice goes without a link rather than not at all
	}
	dm, err := p.openDM(ctx, a.RequestedBy)
	if err != nil {
		return err
	}
	if _, _, err := p.api.PostMessageContext(ctx, dm, slack.MsgOptionText(blocks.RequesterNotice(a, link), false)); err != nil {
		return NewAPIError("chat.postMessage", err)
	}
	return nil
}
