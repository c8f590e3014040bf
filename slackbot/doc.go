// Package slackbot is the Socket Mode bot: it receives clicks, modal
// submissions, the /approvals command and App Home events (routes.go lists
// every entry point), checks who may decide, records decisions through the
// workflow domain, and keeps Slack in step afterwards: the updater (an
// outbox per replica) rewrites request messages and posts thread notes,
// the sweeper completes stranded claims and runs the deadline lifecycle,
// and App Homes are published on demand. It serves /healthz, /readyz and
// /metrics for operators.
//
// What people see is built by package blocks; Web API calls and Slack's
// errors are in slackbot/chat, pacing by Slack's answers in
// slackbot/pacing, and the fake Slack the tests and the local stack use in
// slackbot/fakeslack. It depends on the workflow domain and slack-go only,
// never on AWS. A task token never reaches Slack: buttons and modals carry
// the short approval ID.
package slackbot
