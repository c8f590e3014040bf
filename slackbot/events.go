package slackbot

import (
	"github.com/slack-go/slack/slackevents"
	"go.uber.org/zap"
)

// routeEvent handles an Events API event, already acked. Opening the App
// Home's Home tab publishes it; Slack redelivers an event whose ack it
// missed, which publishes the Home again, harmlessly. Other events are
// ignored.
func (b *Bot) routeEvent(envelopeID string, data any) {
	ev, ok := data.(slackevents.EventsAPIEvent)
	if !ok {
		b.log.Debug("events_api envelope of an unexpected shape ignored", zap.String("envelope_id", envelopeID))
		return
	}
	opened, ok := ev.InnerEvent.Data.(*slackevents.AppHomeOpenedEvent)
	if !ok || opened.Tab != "home" {
		b.log.Debug("event ignored", zap.String("envelope_id", envelopeID), zap.String("event", ev.InnerEvent.Type))
		return
	}
	b.log.Debug("app home opened", zap.String("envelope_id", envelopeID), zap.String("slack_user", opened.User))
	b.homes.opened(opened.User)
}
