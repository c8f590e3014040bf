package slackbot

import (
	"context"

	"github.com/slack-go/slack"
)

// postEphemeral posts a private message through the replica's
// chat.postEphemeral pacer: unpaced until Slack answers 429; then private
// answers wait out the Retry-After and are sent again, for as long as ctx
// allows.
func (b *Bot) postEphemeral(ctx context.Context, channel, user string, opts ...slack.MsgOption) error {
	var err error
	for {
		sent, werr := b.ephemerals.Wait(ctx)
		if werr != nil {
			if err == nil {
				err = werr
			}
			return err
		}
		_, err = b.api.PostEphemeralContext(ctx, channel, user, opts...)
		if _, limited := b.ephemerals.Done(sent, err); !limited {
			return err
		}
	}
}
