// Package chat posts and updates request messages through Slack's Web API
// for the notifier and events Lambdas and the bot (chat.postMessage,
// chat.update, chat.getPermalink, conversations.open), and turns Slack's
// refusals into an *APIError with Slack's code and a hint for operators.
// TokenPoster reads the bot token again when Slack refuses it (a rotated
// token). It links no Socket Mode code; errors never hold a token.
package chat
