package chat

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/slack-go/slack"
)

// APIError is a failed Slack Web API call: the method, Slack's error code
// (such as "channel_not_found") and a hint for whoever operates the app. It
// never contains a token.
type APIError struct {
	Method string
	Code   string
	Hint   string
	Err    error

	retryAfter time.Duration
}

// RetryAfter is Slack's Retry-After when the call was answered 429 (Code
// "ratelimited"), else 0.
func (e *APIError) RetryAfter() time.Duration { return e.retryAfter }

func (e *APIError) Error() string {
	msg := "slack " + e.Method + ": " + e.Code
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

func (e *APIError) Unwrap() error { return e.Err }

var hints = map[string]string{
	"channel_not_found":   "the channel ID is wrong, or it is a private channel the app was not invited to",
	"not_in_channel":      "invite the app to the channel (/invite @approvals), or grant chat:write.public",
	"is_archived":         "the channel is archived",
	"invalid_auth":        "the bot token (SLACK_BOT_TOKEN, or botToken in the SLACK_SECRET_ARN secret) is not valid",
	"not_authed":          "SLACK_BOT_TOKEN is missing",
	"token_revoked":       "the bot token was revoked; reinstall the app and store the new token",
	"account_inactive":    "the app was uninstalled or its workspace is inactive",
	"missing_scope":       "the app lacks a scope it needs (chat:write, commands, usergroups:read, users:read, im:write); reinstall it with the manifest",
	"user_not_found":      "the channel names a user ID that does not exist in the workspace",
	"user_disabled":       "the channel names a deactivated user",
	"cannot_dm_bot":       "the channel names a bot user, which cannot get a direct message",
	"not_enabled":         "the App Home's Home tab is not enabled for the app; reinstall it with the manifest",
	"invalid_blocks":      "Slack refused the message layout",
	"msg_too_long":        "the request text is too long for one Slack message",
	"msg_blocks_too_long": "the request text is too long for one Slack message",
	"ratelimited":         "Slack rate limit reached; retry later",
	"restricted_action":   "a workspace setting prevents the app from posting in this channel",
	"thread_not_found":    "threadTs does not name a message in the channel",
	"cant_update_message": "the message was not posted by this app's token",
	"message_not_found":   "the message was deleted",
	"no_such_subteam":     "the user-group ID does not exist",
	"expired_trigger_id":  "the click was answered too late (trigger IDs last 3 seconds)",
}

// NewAPIError wraps err from a call of method with Slack's code and a hint
// (an *APIError), or with its text redacted when Slack gave no code.
func NewAPIError(method string, err error) error {
	if err == nil {
		return nil
	}
	code := Code(err)
	if d, ok := RetryAfter(err); ok {
		return &APIError{Method: method, Code: "ratelimited", Hint: fmt.Sprintf("retry after %s", d), Err: err, retryAfter: d}
	}
	if code == "" {
		return fmt.Errorf("slack %s: %s", method, redact(err.Error()))
	}
	return &APIError{Method: method, Code: code, Hint: hints[code], Err: err}
}

// Code returns Slack's error code in err, or "".
func Code(err error) string {
	var e slack.SlackErrorResponse
	if errors.As(err, &e) {
		return e.Err
	}
	var a *APIError
	if errors.As(err, &a) {
		return a.Code
	}
	return ""
}

// RetryAfter reports whether err is Slack's 429 and how long to wait.
func RetryAfter(err error) (time.Duration, bool) {
	var rl *slack.RateLimitedError
	if errors.As(err, &rl) {
		return max(rl.RetryAfter, 100*time.Millisecond), true
	}
	var sc slack.StatusCodeError
	if errors.As(err, &sc) && sc.Code == http.StatusTooManyRequests {
		return time.Second, true
	}
	return 0, false
}

var secrets = regexp.MustCompile(`xox[a-z]-[0-9A-Za-z-]+|xapp-[0-9A-Za-z-]+|(ticket|token)=[^&\s"]+`)

// redact removes anything shaped like a Slack token or a Socket Mode
// ticket from text bound for a log.
func redact(s string) string { return secrets.ReplaceAllString(s, "[redacted]") }

// Redacted is err for logging, with anything shaped like a token removed.
func Redacted(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(redact(err.Error()))
}
