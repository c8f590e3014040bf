// Package blocks builds what people see of an approval in Slack: the
// request message and its outcome, the modals (approve with comment,
// reject, request changes, hand over), the App Home, the /approvals
// answers, the thread notices, and the private answers to a click. The
// builders are pure functions of the domain's values that return slack-go
// types, so the notifier Lambda and the bot render the same message
// without the notifier linking the bot's Socket Mode code.
//
// Every text written from a request's author (title, summary, fields,
// drafts, presets, reasons) is escaped or checked so that it can never
// mention or notify anybody (mentions.go), and every message is fitted to
// Slack's limits, shortening text with a note rather than failing the
// post (fit.go). Buttons and modals carry the approval ID, never the task
// token. The action and callback IDs the bot routes on are in ids.go.
package blocks
