package blocks

import (
	"strings"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/workflow"
)

// Slack notifies people for the special mentions <!here>, <!channel>,
// <!everyone>, <!group> and <!subteam^S…> (also with a |label) in mrkdwn
// text. The app writes its own (the approvers in the context line) and
// never sends one an author wrote: every piece of author text is escaped
// (plain text shown in mrkdwn), or kept as mrkdwn with only the markup
// authorMarkup allows, or defused in plain_text objects (plainAuthor). The app never
// sets chat.postMessage's link_names or parse, which would turn plain
// words such as @here into mentions.

// authorMarkup reports whether the <…> sequence unit may stay in author
// mrkdwn: a web or mail link, a user mention, a channel link or a date.
// Special mentions and anything Slack may add later are refused.
func authorMarkup(unit string) bool {
	if len(unit) < 3 || unit[0] != '<' || unit[len(unit)-1] != '>' {
		return false
	}
	target, _, _ := strings.Cut(unit[1:len(unit)-1], "|")
	switch {
	case strings.HasPrefix(target, "https://"), strings.HasPrefix(target, "http://"), strings.HasPrefix(target, "mailto:"):
		return true
	case strings.HasPrefix(target, "@"):
		return workflow.IsUserID(target[1:])
	case strings.HasPrefix(target, "#"):
		return isChannelID(target[1:])
	case strings.HasPrefix(target, "!date^"):
		return true
	}
	return false
}

func isChannelID(s string) bool {
	if len(s) < 3 || len(s) > 21 || (s[0] != 'C' && s[0] != 'G') {
		return false
	}
	for _, c := range s[1:] {
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// plainAuthor is author text as a plain_text object of at most n
// characters. Slack does not parse plain_text, so a special mention in it
// shows literally; a word joiner after its "<" (invisible) keeps it from
// ever reading as one, wherever the text is copied to.
func plainAuthor(s string, n int) *slack.TextBlockObject { return plainAuthorJSON(s, n, 0) }

// plainAuthorJSON is plainAuthor that also takes at most jsonMax
// characters of JSON (0: no bound), for labels that must leave room for
// the message around them.
func plainAuthorJSON(s string, n, jsonMax int) *slack.TextBlockObject {
	units := make([]string, 0, len(s))
	for i, r := range s {
		u := string(r)
		if r == '<' && strings.HasPrefix(s[i+1:], "!") {
			u += "\u2060"
		}
		units = append(units, u)
	}
	text, _ := fit(units, n, jsonMax)
	return plain(text)
}
