package chat

import (
	"context"
	"fmt"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/workflow"
)

// Poster posts approval requests to Slack. The notifier uses it.
type Poster struct {
	api *slack.Client
}

// NewPoster returns a Poster that posts with client's bot token.
func NewPoster(client *slack.Client) *Poster {
	return &Poster{api: client}
}

// PostRequest posts the request message for a in a.Channel, as a reply in
// a.ThreadTS when set, and returns where it landed. A user ID (U…/W…) as
// a.Channel is a direct message from the app: the conversation is opened
// with conversations.open (scope im:write) and the message posted there,
// so the channel returned is the direct message's D… ID. A Slack refusal
// is an *APIError carrying Slack's code (channel_not_found,
// not_in_channel, user_not_found, …) and a hint.
func (p *Poster) PostRequest(ctx context.Context, a workflow.Approval) (channel, ts string, err error) {
	target := a.Channel
	if workflow.IsUserID(target) {
		if target, err = p.openDM(ctx, target); err != nil {
			return "", "", err
		}
	}
	opts := blocks.RequestMessage(a).Options()
	if a.ThreadTS != "" {
		opts = append(opts, slack.MsgOptionTS(a.ThreadTS))
	}
	channel, ts, err = p.api.PostMessageContext(ctx, target, opts...)
	if err != nil {
		return "", "", NewAPIError("chat.postMessage", err)
	}
	return channel, ts, nil
}

// openDM opens (or finds) the direct message between the app and user and
// returns its channel ID.
func (p *Poster) openDM(ctx context.Context, user string) (string, error) {
	ch, _, _, err := p.api.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{user}, ReturnIM: true})
	if err != nil {
		return "", NewAPIError("conversations.open", err)
	}
	if ch == nil || ch.ID == "" {
		return "", fmt.Errorf("slack conversations.open: no direct message channel for %s in the answer", user)
	}
	return ch.ID, nil
}

// UpdateMessage makes a's request message show its outcome (a must be
// final, with its message recorded), as the bot's updater does. A Slack
// refusal is an *APIError.
func (p *Poster) UpdateMessage(ctx context.Context, a workflow.Approval) error {
	if !a.Status.Final() || a.MessageTS == "" {
		return fmt.Errorf("approval %s has no final outcome to show in a recorded message", a.ID)
	}
	if _, _, _, err := p.api.UpdateMessageContext(ctx, a.Channel, a.MessageTS, blocks.OutcomeMessage(a).Options()...); err != nil {
		return NewAPIError("chat.update", err)
	}
	return nil
}

// Permalink returns the link to a message (chat.getPermalink, which needs
// no scope and handles threads). A Slack refusal is an *APIError.
func (p *Poster) Permalink(ctx context.Context, channel, ts string) (string, error) {
	link, err := p.api.GetPermalinkContext(ctx, &slack.PermalinkParameters{Channel: channel, Ts: ts})
	if err != nil {
		return "", NewAPIError("chat.getPermalink", err)
	}
	return link, nil
}
