package blocks

import (
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/workflow"
)

// HomeCallback is the callback_id of the App Home the bot publishes; a
// button click from a view counts only on it (onOwnHome).
const HomeCallback = "approvals_home"

// Bounds of the App Home: Slack allows 100 blocks a view.
const (
	MaxHomePending = 10
	MaxHomeHistory = 10
	// Text of one approval on the Home, shortened with "…"; its message has
	// it whole.
	maxHomeSummary = 500
	maxHomeDraft   = 400
)

// Home is what a person's App Home shows.
type Home struct {
	// User is whose Home it is.
	User string
	// Pending are the approvals User may decide, oldest first, whole (as
	// Store.Get returns them): at most MaxHomePending are shown, each with
	// its buttons; More counts those left out.
	Pending []workflow.Approval
	More    int
	// History is User's latest acts, newest first.
	History []workflow.HistoryEntry
	// Notice answers User's last action on the Home (mrkdwn the bot
	// wrote), or "".
	Notice string
	// PendingUnavailable and HistoryUnavailable say a list could not be
	// read; PendingUnchecked that the requests of some user groups are
	// left out because Slack could not say who is in them.
	PendingUnavailable, HistoryUnavailable bool
	PendingUnchecked                       bool
	// Base is the workspace URL for links to messages ("" for none).
	Base string
	Now  time.Time
}

// HomeView is the App Home tab of h.User: what they may decide now, with
// the same buttons as the request messages (they work from the Home), and
// what they recently decided. The view's private_metadata is the user it
// is for, which a click from it must match.
func HomeView(h Home) slack.HomeTabViewRequest {
	blocks := []slack.Block{slack.NewHeaderBlock(plain("Approvals"))}
	if h.Notice != "" {
		text, _ := fit(mrkdwnUnits(h.Notice), maxSectionLen, 0)
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(text), nil, nil, slack.SectionBlockOptionBlockID("notice")))
	}
	blocks = append(blocks, homePending(h)...)
	blocks = append(blocks, slack.NewDividerBlock(), homeHistory(h),
		slack.NewContextBlock("updated", mrkdwn("Updated "+Date(h.Now)+" · `/approvals pending` and `/approvals history` answer in any channel.")))
	return slack.HomeTabViewRequest{
		Type:            slack.VTHomeTab,
		Blocks:          slack.Blocks{BlockSet: blocks},
		PrivateMetadata: h.User,
		CallbackID:      HomeCallback,
	}
}

func homePending(h Home) []slack.Block {
	shown := h.Pending[:min(len(h.Pending), MaxHomePending)]
	total := len(h.Pending) + h.More
	head := "*Waiting for your decision*"
	switch {
	case h.PendingUnavailable:
		head += "\nCould not list what waits for you right now; this page shows it again when you come back."
	case total == 0:
		head += "\nNothing waits for you. :tada:"
	case total == 1:
		head += " · 1 request, oldest first"
	default:
		head += fmt.Sprintf(" · %d requests, oldest first", total)
	}
	if h.PendingUnchecked && !h.PendingUnavailable {
		head += "\n" + TextSomeUnchecked
	}
	blocks := []slack.Block{slack.NewSectionBlock(mrkdwn(head), nil, nil, slack.SectionBlockOptionBlockID("pending"))}
	for _, a := range shown {
		blocks = append(blocks, slack.NewDividerBlock(),
			slack.NewSectionBlock(mrkdwn(homeSummary(a, h.Base)), nil, nil, slack.SectionBlockOptionBlockID("about_"+a.ID)),
			homeContext(a, h.Now),
			actionsBlock(a))
	}
	if rest := total - len(shown); rest > 0 && !h.PendingUnavailable {
		blocks = append(blocks, slack.NewContextBlock("more", mrkdwn(fmt.Sprintf("…and %d more: `/approvals pending` lists them all.", rest))))
	}
	return blocks
}

// homeSummary is an approval's title (linked to its message), summary and
// drafts, shortened to fit one section.
func homeSummary(a workflow.Approval, base string) string {
	before, after := "*", "*"
	if a.MessageTS != "" && base != "" {
		before, after = "*<"+Permalink(base, a.Channel, a.MessageTS, a.ThreadTS)+"|", ">*"
	}
	text, _ := part{before: before, text: a.Title, after: after, kind: plainText, max: maxHeaderLen + len(before) + len(after)}.render(0)
	if s := strings.TrimSpace(a.Summary); s != "" {
		summary, _ := part{text: s, kind: authorMrkdwn, max: maxHomeSummary}.render(0)
		text += "\n" + summary
	}
	for i, d := range a.Drafts {
		draft, _ := part{before: fmt.Sprintf("\n*Draft %d*\n", i+1), text: d, kind: plainText, max: maxHomeDraft}.render(0)
		text += draft
	}
	return text
}

func homeContext(a workflow.Approval, now time.Time) slack.Block {
	parts := []string{"Waiting " + age(now.Sub(a.CreatedAt))}
	if a.RequestedBy != "" {
		parts = append(parts, "requested by "+Mention(a.RequestedBy))
	}
	if !a.Deadline.IsZero() {
		parts = append(parts, "due "+Date(a.Deadline))
	}
	if p := Progress(a); p != "" {
		parts = append(parts, p)
	}
	if n := len(a.Delegations); n > 0 {
		parts = append(parts, "handed to you by "+Mention(a.Delegations[n-1].From))
	}
	parts = append(parts, "`"+a.ID+"`")
	return slack.NewContextBlock("ctx_"+a.ID, mrkdwn(strings.Join(parts, " · ")))
}

func homeHistory(h Home) slack.Block {
	text := "*Recently decided by you*"
	switch {
	case h.HistoryUnavailable:
		text += "\nCould not read your history right now."
	case len(h.History) == 0:
		text += "\nNothing yet."
	}
	units := []string{text}
	for _, e := range h.History[:min(len(h.History), MaxHomeHistory)] {
		units = append(units, "\n"+historyLine(e, h.Base))
	}
	text, _ = fit(units, maxSectionLen, 0)
	return slack.NewSectionBlock(mrkdwn(text), nil, nil, slack.SectionBlockOptionBlockID("history"))
}

// historyLine is one act of a person's history: what they did, on which
// request (linked to its message), and when.
func historyLine(e workflow.HistoryEntry, base string) string {
	title := fitEscaped(e.Title, maxHeaderLen)
	if e.MessageTS != "" && base != "" {
		title = "<" + Permalink(base, e.Channel, e.MessageTS, "") + "|" + title + ">"
	}
	return historyAct(e.Event) + " · *" + title + "* · " + Date(e.Event.At)
}

func historyAct(e workflow.AuditEvent) string {
	draft := ""
	if e.DraftIndex != nil {
		draft = fmt.Sprintf(" draft %d", *e.DraftIndex+1)
	}
	switch {
	case e.Type == workflow.EventDelegated && len(e.Users) > 0:
		return "↪️ Handed to " + Mention(e.Users[0])
	case e.Type == workflow.EventVoted:
		return "🗳️ Approved" + draft + " (towards the quorum)"
	case e.Action == workflow.ActionApprove:
		return "✅ Approved" + draft
	case e.Action == workflow.ActionReject:
		return "❌ Rejected"
	case e.Action == workflow.ActionRevise:
		return "✏️ Requested changes"
	case e.Action == workflow.ActionSkip:
		return "⏭️ Skipped"
	}
	return "Decided"
}

// HistoryMessage answers /approvals history: the caller's latest acts,
// newest first, with links to the messages (built on base; without it the
// titles are not linked and a note says so).
func HistoryMessage(entries []workflow.HistoryEntry, base string) Message {
	if len(entries) == 0 {
		return Message{Text: "You have not decided any approval yet.", Blocks: []slack.Block{
			slack.NewSectionBlock(mrkdwn("You have not decided any approval yet."), nil, nil),
		}}
	}
	head := fmt.Sprintf("Your last %d %s, newest first:", len(entries), pluralWord(len(entries), "decision", "decisions"))
	units := []string{head}
	for _, e := range entries {
		units = append(units, "\n"+historyLine(e, base))
	}
	text, _ := fit(units, maxSectionLen, 0)
	blocks := []slack.Block{slack.NewSectionBlock(mrkdwn(text), nil, nil)}
	if base == "" {
		blocks = append(blocks, slack.NewContextBlock("", mrkdwn("Links to the messages are unavailable right now: Slack did not say which workspace this is.")))
	}
	return Message{Text: head, Blocks: blocks}
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
