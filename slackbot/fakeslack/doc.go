// Package fakeslack is a stateful fake of the parts of Slack an approvals bot uses: the Web API
// (auth, chat, conversations.open for direct messages, views including the App Home's
// views.publish, users, usergroups, response URLs) and Socket Mode (apps.connections.open plus a
// WebSocket that delivers envelopes and collects acks).
//
// It speaks the wire protocol of slack-go v0.36.0, so tests and the local demo run the real client
// against it over real sockets:
//
//	s, err := fakeslack.Start(fakeslack.Options{})
//	defer s.Close()
//	api := slack.New(s.BotToken(), slack.OptionAppLevelToken(s.AppToken()), slack.OptionAPIURL(s.APIURL()))
//
// The driver methods (Click, Slash, Submit, SendEvent, OpenHome, ClickHome) play a person; the
// inspection methods (Messages, Ephemerals, Views, Home, Acks, Failures) read what the bot did. Changed and WaitFor let a test
// wait for state to change without sleeping.
//
// The fake enforces Slack's documented limits (Block Kit sizes, single-use triggers that expire,
// chat.update only on the bot's own messages, a 3 s ack deadline, at most 10 sockets, Slack's
// redelivery schedule for unacked events and none for anything else) and can inject rate limits,
// outages and lost answers (FailMethod, or Options.Faults for every call) and socket refreshes
// (Disconnect, DisconnectOne). Sockets and Deliveries tell which socket got which envelope. It does
// not import the testing package, so the local stack uses it too.
package fakeslack
