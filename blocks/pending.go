package blocks

import (
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/workflow"
)

// maxListed bounds the approvals listed by /approvals pending.
const maxListed = 20

// PendingMessage answers /approvals pending in locale: the approvals
// waiting for the caller, oldest first, each with its age, deadline and a
// link to its message (built on base, the workspace URL such as
// "https://acme.slack.com/"; without base, a note says links are
// unavailable). At most 20 are listed, followed by how many more wait.
func PendingMessage(locale string, pending []workflow.Approval, now time.Time, base string) Message {
	l := locale
	if len(pending) == 0 {
		return Message{Text: T(l, KPendNoneText), Blocks: []slack.Block{
			slack.NewSectionBlock(mrkdwn(T(l, KPendNone)), nil, nil),
		}}
	}
	head := T(l, KPendHead, len(pending))
	if len(pending) == 1 {
		head = T(l, KPendHeadOne, 1)
	}
	first := slack.NewSectionBlock(mrkdwn(head), nil, nil)
	var tail []slack.Block
	if rest := len(pending) - maxListed; rest > 0 {
		tail = append(tail, slack.NewContextBlock("", mrkdwn(T(l, KPendMore, rest))))
	}
	if base == "" {
		tail = append(tail, slack.NewContextBlock("", mrkdwn(T(l, KNoLinks))))
	}
	var parts []part
	for _, a := range pending[:min(len(pending), maxListed)] {
		before, after := "*", "*"
		if a.MessageTS != "" && base != "" {
			before, after = "*<"+Permalink(base, a.Channel, a.MessageTS, a.ThreadTS)+"|", ">*"
		}
		due := T(l, KPendNoDeadline)
		if !a.Deadline.IsZero() {
			due = T(l, KPendDue, Date(l, a.Deadline))
		}
		after += T(l, KPendLine, age(l, now.Sub(a.CreatedAt)), due, a.ID)
		parts = append(parts, part{before: before, text: a.Title, after: after, kind: plainText, max: maxSectionLen})
	}
	room := maxBlocksLen - blocksLen(append([]slack.Block{first}, tail...)...)
	blocks := fitParts(parts, room, nil, func(lines []string) []slack.Block {
		blocks := make([]slack.Block, 0, len(lines))
		for _, line := range lines {
			blocks = append(blocks, slack.NewSectionBlock(mrkdwn(line), nil, nil))
		}
		return blocks
	})
	return Message{Text: head, Blocks: append(append([]slack.Block{first}, blocks...), tail...)}
}

// Bounds of /approvals history N.
const (
	DefaultHistory = 10
	MaxHistory     = 50
)

// HelpMessage explains the slash command in locale.
func HelpMessage(locale, command string) Message {
	text := T(locale, KHelp, command, DefaultHistory, MaxHistory)
	return Message{Text: T(locale, KHelpFallback, command), Blocks: []slack.Block{slack.NewSectionBlock(mrkdwn(text), nil, nil)}}
}

// Permalink is the link to a message: base/archives/<channel>/p<ts without
// the dot>, with the thread when the message is a reply.
func Permalink(base, channel, ts, threadTS string) string {
	link := strings.TrimSuffix(base, "/") + "/archives/" + channel + "/p" + strings.Replace(ts, ".", "", 1)
	if threadTS != "" && threadTS != ts {
		link += "?thread_ts=" + threadTS + "&cid=" + channel
	}
	return link
}

func age(locale string, d time.Duration) string {
	switch {
	case d < time.Minute:
		return T(locale, KAgeUnderMinute)
	case d < time.Hour:
		return plural(locale, int(d/time.Minute), KAgeMinute, KAgeMinutes)
	case d < 48*time.Hour:
		return plural(locale, int(d/time.Hour), KAgeHour, KAgeHours)
	}
	return plural(locale, int(d/(24*time.Hour)), KAgeDay, KAgeDays)
}

func plural(locale string, n int, one, many Key) string {
	if n == 1 {
		return T(locale, one)
	}
	return T(locale, many, n)
}
