package blocks

import (
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
	// read.
	PendingUnavailable, HistoryUnavailable bool
	// Requested are the open requests User asked for, oldest first (as
	// Service.RequestedBy lists them), each with its Withdraw button;
	// RequestedUnavailable says they could not be listed.
	Requested            []workflow.Approval
	RequestedUnavailable bool
	// Base is the workspace URL for links to messages ("" for none).
	Base string
	Now  time.Time
	// Locale is the language of the Home (the bot's); each request is
	// shown in its own.
	Locale string
}

// HomeView is the App Home tab of h.User: what they may decide now, with
// the same buttons as the request messages (they work from the Home), and
// what they recently decided. The view's private_metadata is the user it
// is for, which a click from it must match.
func HomeView(h Home) slack.HomeTabViewRequest {
	l := h.Locale
	blocks := []slack.Block{slack.NewHeaderBlock(plain(T(l, KHomeTitle)))}
	if h.Notice != "" {
		text, _ := fit(mrkdwnUnits(h.Notice), maxSectionLen, 0)
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(text), nil, nil, slack.SectionBlockOptionBlockID("notice")))
	}
	blocks = append(blocks, homePending(h)...)
	blocks = append(blocks, homeRequested(h)...)
	blocks = append(blocks, slack.NewDividerBlock(), homeHistory(h),
		slack.NewContextBlock("updated", mrkdwn(T(l, KHomeUpdated, Date(l, h.Now)))))
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
	l := h.Locale
	head := T(l, KHomeWaiting)
	switch {
	case h.PendingUnavailable:
		head += "\n" + T(l, KHomeCannotList)
	case total == 0:
		head += "\n" + T(l, KHomeNothing)
	case total == 1:
		head += T(l, KHomeCountOne)
	default:
		head += T(l, KHomeCount, total)
	}
	blocks := []slack.Block{slack.NewSectionBlock(mrkdwn(head), nil, nil, slack.SectionBlockOptionBlockID("pending"))}
	for _, a := range shown {
		blocks = append(blocks, slack.NewDividerBlock(),
			slack.NewSectionBlock(mrkdwn(homeSummary(a, h.Base)), nil, nil, slack.SectionBlockOptionBlockID("about_"+a.ID)),
			homeContext(a, h.Now),
			actionsFor(a, false))
	}
	if rest := total - len(shown); rest > 0 && !h.PendingUnavailable {
		blocks = append(blocks, slack.NewContextBlock("more", mrkdwn(T(l, KHomeMore, rest))))
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
		draft, _ := part{before: "\n" + T(a.Locale, KDraftLabel, i+1) + "\n", text: d, kind: plainText, max: maxHomeDraft}.render(0)
		text += draft
	}
	return text
}

func homeContext(a workflow.Approval, now time.Time) slack.Block {
	l := a.Locale
	parts := []string{T(l, KHomeWaitingFor, age(l, now.Sub(a.CreatedAt)))}
	if a.RequestedBy != "" {
		parts = append(parts, T(l, KHomeRequestedBy, Mention(a.RequestedBy)))
	}
	if !a.Deadline.IsZero() {
		parts = append(parts, T(l, KHomeDue, Date(l, a.Deadline)))
	}
	if p := Progress(a); p != "" {
		parts = append(parts, p)
	}
	if n := len(a.Delegations); n > 0 {
		parts = append(parts, T(l, KHomeHandedBy, Mention(a.Delegations[n-1].From)))
	}
	parts = append(parts, "`"+a.ID+"`")
	return slack.NewContextBlock("ctx_"+a.ID, mrkdwn(strings.Join(parts, " · ")))
}

func homeHistory(h Home) slack.Block {
	l := h.Locale
	text := T(l, KHomeHistory)
	switch {
	case h.HistoryUnavailable:
		text += "\n" + T(l, KHomeHistoryFailed)
	case len(h.History) == 0:
		text += "\n" + T(l, KHomeHistoryNone)
	}
	units := []string{text}
	for _, e := range h.History[:min(len(h.History), MaxHomeHistory)] {
		units = append(units, "\n"+historyLine(l, e, h.Base))
	}
	text, _ = fit(units, maxSectionLen, 0)
	return slack.NewSectionBlock(mrkdwn(text), nil, nil, slack.SectionBlockOptionBlockID("history"))
}

// homeRequested lists the open requests h.User asked for, each with its
// Withdraw button; nothing when there are none.
func homeRequested(h Home) []slack.Block {
	l := h.Locale
	if len(h.Requested) == 0 && !h.RequestedUnavailable {
		return nil
	}
	head := T(l, KHomeYours)
	if h.RequestedUnavailable {
		head += "\n" + T(l, KHomeYoursFailed)
	}
	blocks := []slack.Block{slack.NewDividerBlock(), slack.NewSectionBlock(mrkdwn(head), nil, nil, slack.SectionBlockOptionBlockID("requested"))}
	for _, a := range h.Requested[:min(len(h.Requested), MaxHomePending)] {
		title, _ := part{before: "*", text: a.Title, after: "*", kind: plainText, max: maxHeaderLen + 2}.render(0)
		if a.MessageTS != "" && h.Base != "" {
			title = "*<" + Permalink(h.Base, a.Channel, a.MessageTS, a.ThreadTS) + "|" + fitEscaped(a.Title, maxHeaderLen) + ">*"
		}
		withdraw := confirmed(a, "withdraw", button(ActionWithdraw, T(l, KBtnWithdraw), a.ID, ""), T(a.Locale, KConfirmWithdraw))
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(T(l, KHomeYoursLine, title, age(l, h.Now.Sub(a.CreatedAt)))), nil,
			slack.NewAccessory(withdraw), slack.SectionBlockOptionBlockID("mine_"+a.ID)))
	}
	return blocks
}

// historyLine is one act of a person's history: what they did, on which
// request (linked to its message), and when.
func historyLine(locale string, e workflow.HistoryEntry, base string) string {
	title := fitEscaped(e.Title, maxHeaderLen)
	if e.MessageTS != "" && base != "" {
		title = "<" + Permalink(base, e.Channel, e.MessageTS, "") + "|" + title + ">"
	}
	return historyAct(locale, e.Event) + " · *" + title + "* · " + Date(locale, e.Event.At)
}

func historyAct(l string, e workflow.AuditEvent) string {
	switch {
	case e.Type == workflow.EventDelegated && len(e.Users) > 0:
		return T(l, KHistHanded, Mention(e.Users[0]))
	case e.Type == workflow.EventVoted && e.DraftIndex != nil:
		return T(l, KHistVotedDraft, *e.DraftIndex+1)
	case e.Type == workflow.EventVoted:
		return T(l, KHistVoted)
	case e.Action == workflow.ActionApprove && e.DraftIndex != nil && e.Edited:
		return T(l, KHistEdited, *e.DraftIndex+1)
	case e.Action == workflow.ActionApprove && e.DraftIndex != nil:
		return T(l, KHistApprovedDraft, *e.DraftIndex+1)
	case e.Action == workflow.ActionApprove:
		return T(l, KHistApproved)
	case e.Action == workflow.ActionReject:
		return T(l, KHistRejected)
	case e.Action == workflow.ActionRevise:
		return T(l, KHistRevised)
	case e.Action == workflow.ActionSkip:
		return T(l, KHistSkipped)
	case e.Action == workflow.ActionWithdraw:
		return T(l, KHistWithdrew)
	}
	return T(l, KHistDecided)
}

// HistoryMessage answers /approvals history in locale: the caller's
// latest acts, newest first, with links to the messages (built on base;
// without it the titles are not linked and a note says so).
func HistoryMessage(locale string, entries []workflow.HistoryEntry, base string) Message {
	if len(entries) == 0 {
		return Message{Text: T(locale, KHistNone), Blocks: []slack.Block{
			slack.NewSectionBlock(mrkdwn(T(locale, KHistNone)), nil, nil),
		}}
	}
	head := T(locale, KHistHead, len(entries))
	if len(entries) == 1 {
		head = T(locale, KHistHeadOne, 1)
	}
	units := []string{head}
	for _, e := range entries {
		units = append(units, "\n"+historyLine(locale, e, base))
	}
	text, _ := fit(units, maxSectionLen, 0)
	blocks := []slack.Block{slack.NewSectionBlock(mrkdwn(text), nil, nil)}
	if base == "" {
		blocks = append(blocks, slack.NewContextBlock("", mrkdwn(T(locale, KNoLinks))))
	}
	return Message{Text: head, Blocks: blocks}
}
