package blocks

import (
	"strconv"
	"strings"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/workflow"
)

// Message is a Slack message: the notification fallback text and the
// blocks people see.
type Message struct {
	Text   string        `json:"text"`
	Blocks []slack.Block `json:"blocks"`
}

func (m Message) Options() []slack.MsgOption {
	return []slack.MsgOption{slack.MsgOptionText(m.Text, false), slack.MsgOptionBlocks(m.Blocks...)}
}

// RequestMessage is the message that asks the approvers to decide a: what
// is asked, who may decide, the deadline, and the actions (actions.go).
// Buttons carry the approval ID, never the task token. It is written in
// a's locale.
func RequestMessage(a workflow.Approval) Message {
	tail := withBlock(statusBlock(a), withBlock(editNote(a), contextBlock(a), actionsBlock(a))...)
	blocks := append(bodyBlocks(a, nil, maxBlocksLen-blocksLen(tail...)), tail...)
	return Message{Text: T(a.Locale, KRequested, Escape(a.Title)), Blocks: blocks}
}

// OutcomeMessage is the request message rewritten once a is final: the same
// body, the outcome (who decided what and when), and no buttons. For an
// approval that is not final it returns the request message.
func OutcomeMessage(a workflow.Approval) Message {
	if !a.Status.Final() {
		return RequestMessage(a)
	}
	tail := []slack.Block{
		slack.NewDividerBlock(),
		slack.NewSectionBlock(mrkdwn(outcomeText(a)), nil, nil, slack.SectionBlockOptionBlockID("outcome")),
	}
	tail = append(tail, withBlock(statusBlock(a), contextBlock(a))...)
	blocks := append(bodyBlocks(a, ChosenDraft(a), maxBlocksLen-blocksLen(tail...)), tail...)
	return Message{Text: T(a.Locale, KOutcomeText, Escape(a.Title), ReplyText(a)), Blocks: blocks}
}

// ReplyText is the short reply posted in the request's thread once a is
// decided, such as "Approved by <@U1>.".
func ReplyText(a workflow.Approval) string {
	l := a.Locale
	if a.Status == workflow.StatusCancelled {
		return cancelledReply(a)
	}
	d := a.Decision
	if a.Status == workflow.StatusExpired || d == nil || d.Action == workflow.ActionExpire {
		return T(l, KReplyExpired)
	}
	if DecidedByDeadline(a) {
		if d.Action == workflow.ActionSkip {
			return T(l, KReplyDeadlineSkipped)
		}
		return T(l, KReplyDeadlineRejected)
	}
	by := Mention(d.DecidedBy)
	text := strings.TrimSpace(d.Text)
	switch d.Action {
	case workflow.ActionApprove:
		if a.Quorum() > 1 {
			by = approvers(a)
		}
		comment := ""
		if a.Quorum() == 1 {
			comment = fitEscaped(oneLine(text), 300)
		}
		i := ChosenDraft(a)
		switch {
		case i != nil && d.Edited != "" && comment != "":
			return T(l, KReplyApprovedEditCom, by, *i+1, comment)
		case i != nil && d.Edited != "":
			return T(l, KReplyApprovedEdited, by, *i+1)
		case i != nil && comment != "":
			return T(l, KReplyApprovedDraftCom, by, *i+1, comment)
		case i != nil:
			return T(l, KReplyApprovedDraft, by, *i+1)
		case comment != "":
			return T(l, KReplyApprovedComment, by, comment)
		}
		return T(l, KReplyApproved, by)
	case workflow.ActionReject:
		if text != "" {
			return T(l, KReplyRejectedReason, by, fitEscaped(text, 300))
		}
		return T(l, KReplyRejected, by)
	case workflow.ActionRevise:
		return T(l, KReplyRevise, by, fitEscaped(strings.ReplaceAll(d.Feedback(), "\n", T(l, KFeedbackJoin)), 300))
	case workflow.ActionSkip:
		return T(l, KReplySkipped, by)
	case workflow.ActionWithdraw:
		if text != "" {
			return T(l, KReplyWithdrawnReason, by, fitEscaped(text, 300))
		}
		return T(l, KReplyWithdrawn, by)
	}
	return T(l, KReplyDecided, by)
}

// bodyBlocks are the title, summary, fields and drafts; chosen marks the
// approved draft. Text is cut to Slack's limits, and the blocks to room
// characters of JSON, with a note saying so.
func bodyBlocks(a workflow.Approval, chosen *int, room int) []slack.Block {
	hasSummary := strings.TrimSpace(a.Summary) != ""
	var parts []part
	if hasSummary {
		parts = append(parts, part{text: a.Summary, max: maxSectionLen})
	}
	for _, f := range a.Fields {
		parts = append(parts, part{before: "*" + fitEscaped(f.Label, maxLabelLen) + "*\n", text: f.Value, max: maxFieldLen})
	}
	for i, d := range a.Drafts {
		label := T(a.Locale, KDraftLabel, i+1)
		if chosen != nil && *chosen == i {
			label += T(a.Locale, KDraftApproved)
		}
		parts = append(parts, part{before: label + "\n", text: d, kind: plainText, max: maxSectionLen})
	}
	build := func(texts []string) []slack.Block {
		blocks := []slack.Block{slack.NewHeaderBlock(plainAuthor(a.Title, maxHeaderLen))}
		if hasSummary {
			blocks = append(blocks, slack.NewSectionBlock(mrkdwn(texts[0]), nil, nil))
			texts = texts[1:]
		}
		if len(a.Fields) > 0 {
			fields := make([]*slack.TextBlockObject, 0, len(a.Fields))
			for _, t := range texts[:len(a.Fields)] {
				fields = append(fields, mrkdwn(t))
			}
			blocks = append(blocks, slack.NewSectionBlock(nil, fields, nil))
			texts = texts[len(a.Fields):]
		}
		for i, t := range texts {
			blocks = append(blocks, slack.NewSectionBlock(mrkdwn(t), nil, nil,
				slack.SectionBlockOptionBlockID("draft_"+strconv.Itoa(i))))
		}
		return blocks
	}
	return fitParts(parts, room, shortenedNote(a.Locale), build)
}

// shortenedNote follows a body whose text was cut to fit.
func shortenedNote(locale string) slack.Block {
	return slack.NewContextBlock("shortened", mrkdwn(T(locale, KShortened)))
}

func contextBlock(a workflow.Approval) *slack.ContextBlock {
	l := a.Locale
	who := make([]string, 0, len(a.Approvers))
	for _, id := range a.Approvers {
		who = append(who, Mention(id))
	}
	parts := []string{T(l, KCtxApprovers, strings.Join(who, T(l, KListSep)))}
	if a.RequestedBy != "" {
		parts = append(parts, T(l, KCtxRequestedBy, Mention(a.RequestedBy)))
	}
	if a.Deadline.IsZero() {
		parts = append(parts, T(l, KCtxNoDeadline))
	} else {
		parts = append(parts, T(l, KCtxDeadline, Date(l, a.Deadline)))
	}
	parts = append(parts, T(l, KCtxID, a.ID))
	return slack.NewContextBlock("context", mrkdwn(strings.Join(parts, " · ")))
}

// withBlock is blocks, after first unless first is nil.
func withBlock(first slack.Block, blocks ...slack.Block) []slack.Block {
	if first == nil {
		return blocks
	}
	return append([]slack.Block{first}, blocks...)
}

// approvers are the people whose approvals of the decided draft decided a.
func approvers(a workflow.Approval) string {
	var ids []string
	for _, v := range a.VotesFor(a.Decision.DraftIndex, a.Decision.Edited) {
		ids = append(ids, v.UserID)
	}
	return Mentions(a.Locale, ids)
}

func outcomeText(a workflow.Approval) string {
	l := a.Locale
	if a.Status == workflow.StatusCancelled {
		return cancelledOutcome(a)
	}
	d := a.Decision
	if a.Status == workflow.StatusExpired || d == nil || d.Action == workflow.ActionExpire {
		if d != nil && d.DecidedBy != "" && d.Action != workflow.ActionExpire {
			return T(l, KOutExpiredBefore, Mention(d.DecidedBy), Date(l, d.DecidedAt))
		}
		return T(l, KOutExpiredNobody)
	}
	if DecidedByDeadline(a) {
		if d.Action == workflow.ActionSkip {
			return T(l, KOutDeadlineSkipped, Date(l, d.DecidedAt))
		}
		return T(l, KOutDeadlineRejected, Date(l, d.DecidedAt))
	}
	by, at := Mention(d.DecidedBy), Date(l, d.DecidedAt)
	quoted := func(text, before string) string {
		room := maxReasonJSON
		if d.Edited != "" {
			room /= 2 // the edited draft takes the other half
		}
		out, _ := part{before: text + before, text: strings.TrimSpace(d.Text), kind: plainText, max: maxSectionLen}.render(room)
		return out
	}
	switch d.Action {
	case workflow.ActionApprove:
		quorum := a.Quorum() > 1
		if quorum {
			by = approvers(a)
		}
		key := map[bool]Key{false: KOutApproved, true: KOutApprovedQuorum}[quorum]
		i := ChosenDraft(a)
		switch {
		case i != nil && d.Edited != "":
			key = map[bool]Key{false: KOutApprovedEdited, true: KOutApprovedEditedQuor}[quorum]
		case i != nil:
			key = map[bool]Key{false: KOutApprovedDraft, true: KOutApprovedDraftQuor}[quorum]
		}
		text := T(l, key, by, at)
		if i != nil {
			text = T(l, key, by, at, *i+1)
		}
		if i != nil && d.Edited != "" {
			text, _ = part{before: text + T(l, KOutEditedText), text: d.Edited, kind: quotedText, max: maxSectionLen}.render(maxReasonJSON / 2)
		}
		if strings.TrimSpace(d.Text) != "" && !quorum {
			text = quoted(text, T(l, KOutComment))
		}
		return text
	case workflow.ActionReject:
		text := T(l, KOutRejected, by, at)
		if strings.TrimSpace(d.Text) != "" {
			text = quoted(text, T(l, KOutReason))
		}
		return text
	case workflow.ActionRevise:
		text, _ := part{before: T(l, KOutRevise, by, at), text: d.Feedback(), kind: quotedText, max: maxSectionLen}.render(maxReasonJSON)
		return text
	case workflow.ActionSkip:
		return T(l, KOutSkipped, by, at)
	case workflow.ActionWithdraw:
		text := T(l, KOutWithdrawn, by, at)
		if strings.TrimSpace(d.Text) != "" {
			text = quoted(text, T(l, KOutReason))
		}
		return text
	}
	return T(l, KOutDecided, by, at)
}

// ChosenDraft is the index of the approved draft, or nil.
func ChosenDraft(a workflow.Approval) *int {
	d := a.Decision
	if a.Status != workflow.StatusDecided || d == nil || d.Action != workflow.ActionApprove ||
		d.DraftIndex < 0 || d.DraftIndex >= len(a.Drafts) {
		return nil
	}
	i := d.DraftIndex
	return &i
}

// Mention formats a user or user-group ID so Slack renders the name.
func Mention(id string) string {
	if workflow.IsGroupID(id) {
		return "<!subteam^" + id + ">"
	}
	return "<@" + id + ">"
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// Escape makes user text literal in mrkdwn, so it cannot mention
// @channel or forge links.
func Escape(s string) string { return escaper.Replace(s) }

func plain(text string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, text, true, false)
}

func mrkdwn(text string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, text, false, false)
}
