package blocks

import (
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/workflow"
)

// maxListed bounds the approvals listed by /approvals pending.
const maxListed = 20

// TextSomeUnchecked says a list of pending requests leaves out those of
// user groups whose members Slack could not list.
const TextSomeUnchecked = "Some requests for user groups could not be checked right now (Slack did not say who is in them), so they are not listed; try again in a minute."

// WithUnchecked is the answer to /approvals pending m with a note that
// some requests could not be checked (TextSomeUnchecked).
func WithUnchecked(m Message) Message {
	m.Text += " " + TextSomeUnchecked
	m.Blocks = append(m.Blocks, slack.NewContextBlock("unchecked", mrkdwn(TextSomeUnchecked)))
	return m
}

// PendingMessage answers /approvals pending: the approvals waiting for the
// caller, oldest first, each with its age, deadline and a link to its
// message (built on base, the workspace URL such as
// "https://acme.slack.com/"; without base, a note says links are
// unavailable). At most 20 are listed, followed by how many more wait.
func PendingMessage(pending []workflow.Approval, now time.Time, base string) Message {
	if len(pending) == 0 {
		return Message{Text: "Nothing waiting for you.", Blocks: []slack.Block{
			slack.NewSectionBlock(mrkdwn("Nothing waiting for you. :tada:"), nil, nil),
		}}
	}
	noun := "approvals wait"
	if len(pending) == 1 {
		noun = "approval waits"
	}
	head := fmt.Sprintf("%d %s for your decision, oldest first:", len(pending), noun)
	first := slack.NewSectionBlock(mrkdwn(head), nil, nil)
	var tail []slack.Block
	if rest := len(pending) - maxListed; rest > 0 {
		tail = append(tail, slack.NewContextBlock("", mrkdwn(fmt.Sprintf("…and %d more.", rest))))
	}
	if base == "" {
		tail = append(tail, slack.NewContextBlock("", mrkdwn("Links to the messages are unavailable right now: Slack did not say which workspace this is.")))
	}
	var parts []part
	for _, a := range pending[:min(len(pending), maxListed)] {
		before, after := "*", "*"
		if a.MessageTS != "" && base != "" {
			before, after = "*<"+Permalink(base, a.Channel, a.MessageTS, a.ThreadTS)+"|", ">*"
		}
		due := "no deadline"
		if !a.Deadline.IsZero() {
			due = "due " + Date(a.Deadline)
		}
		after += fmt.Sprintf("\nWaiting %s · %s · `%s`", age(now.Sub(a.CreatedAt)), due, a.ID)
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

// HelpMessage explains the slash command.
func HelpMessage(command string) Message {
	text := fmt.Sprintf("*Usage*\n`%[1]s pending` lists the approvals waiting for your decision, oldest first.\n"+
		"`%[1]s history [N]` lists your last N decisions (default %[2]d, at most %[3]d), newest first.\n`%[1]s help` shows this help.\n"+
		"To decide, use the buttons on the request message or on the app's Home tab.", command, DefaultHistory, MaxHistory)
	return Message{Text: "Usage: " + command + " pending", Blocks: []slack.Block{slack.NewSectionBlock(mrkdwn(text), nil, nil)}}
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

func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour")
	}
	return plural(int(d/(24*time.Hour)), "day")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
