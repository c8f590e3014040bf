package slackbot

import (
	"context"

	"github.com/slack-go/slack"

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
// a.ThreadTS when set, and returns where it landed. A Slack refusal is an
// *APIError carrying Slack's code (channel_not_found, not_in_channel, …)
// and a hint.
func (p *Poster) PostRequest(ctx context.Context, a workflow.Approval) (channel, ts string, err error) {
	opts := RequestMessage(a).options()
	if a.ThreadTS != "" {
		opts = append(opts, slack.MsgOptionTS(a.ThreadTS))
	}
	channel, ts, err = p.api.PostMessageContext(ctx, a.Channel, opts...)
	if err != nil {
		return "", "", apiError("chat.postMessage", err)
	}
	return channel, ts, nil
}
