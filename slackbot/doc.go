// Package slackbot is the Slack side of approvals: the Socket Mode bot that
// receives clicks, modal submissions and the /approvals command, the Block
// Kit builders for every message and modal, the poster the notifier uses to
// post a request, the updater that rewrites a request message once it is
// decided, and the user-group directory that answers who may decide.
//
// It depends on the workflow domain and slack-go only. A task token never
// reaches Slack: buttons and modals carry the short approval ID.
package slackbot
