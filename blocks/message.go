package blocks

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

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
// is asked, who may decide, the deadline, and one button per possible
// decision. Buttons carry the approval ID, never the task token.
func RequestMessage(a workflow.Approval) Message {
	tail := withBlock(statusBlock(a), contextBlock(a), actionsBlock(a))
	blocks := append(bodyBlocks(a, nil, maxBlocksLen-blocksLen(tail...)), tail...)
	return Message{Text: "Approval requested: " + Escape(a.Title), Blocks: blocks}
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
	return Message{Text: Escape(a.Title) + ": " + ReplyText(a), Blocks: blocks}
}

// ReplyText is the short reply posted in the request's thread once a is
// decided, such as "Approved by <@U1>.".
func ReplyText(a workflow.Approval) string {
	if a.Status == workflow.StatusCancelled {
		return cancelledReply(a)
	}
	d := a.Decision
	if a.Status == workflow.StatusExpired || d == nil || d.Action == workflow.ActionExpire {
		return "Expired: the workflow stopped waiting for a decision."
	}
	if DecidedByDeadline(a) {
		return fmt.Sprintf("%s at its deadline: nobody decided in time.", capitalized(DeadlineVerb(d.Action)))
	}
	by := Mention(d.DecidedBy)
	switch d.Action {
	case workflow.ActionApprove:
		if a.Quorum() > 1 {
			by = approvers(a)
		}
		what := "Approved"
		if i := ChosenDraft(a); i != nil {
			what = fmt.Sprintf("Approved draft %d", *i+1)
		}
		if c := strings.TrimSpace(d.Text); c != "" && a.Quorum() == 1 {
			return what + " by " + by + ": " + fitEscaped(oneLine(c), 300)
		}
		return what + " by " + by + "."
	case workflow.ActionReject:
		if reason := strings.TrimSpace(d.Text); reason != "" {
			return "Rejected by " + by + ": " + fitEscaped(reason, 300)
		}
		return "Rejected by " + by + "."
	case workflow.ActionRevise:
		return "Changes requested by " + by + ": " + fitEscaped(strings.ReplaceAll(d.Feedback(), "\n", " — "), 300)
	case workflow.ActionSkip:
		return "Skipped by " + by + "."
	}
	return "Decided by " + by + "."
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
		label := fmt.Sprintf("*Draft %d*", i+1)
		if chosen != nil && *chosen == i {
			label += " ✅ _approved_"
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
	return fitParts(parts, room, shortenedNote(), build)
}

// shortenedNote follows a body whose text was cut to fit.
func shortenedNote() slack.Block {
	return slack.NewContextBlock("shortened",
		mrkdwn("✂️ Some text is shortened to fit in Slack; the workflow has it in full."))
}

func contextBlock(a workflow.Approval) *slack.ContextBlock {
	who := make([]string, 0, len(a.Approvers))
	for _, id := range a.Approvers {
		who = append(who, Mention(id))
	}
	parts := []string{"Approvers: " + strings.Join(who, ", ")}
	if a.RequestedBy != "" {
		parts = append(parts, "Requested by "+Mention(a.RequestedBy))
	}
	if a.Deadline.IsZero() {
		parts = append(parts, "No deadline")
	} else {
		parts = append(parts, "Deadline: "+Date(a.Deadline))
	}
	parts = append(parts, "ID `"+a.ID+"`")
	return slack.NewContextBlock("context", mrkdwn(strings.Join(parts, " · ")))
}

// actionsBlock is one button per decision. With requireComment holding
// approve, the approve buttons open the comment modal; otherwise "Approve
// with comment" does. "Hand over" appears when the request allows
// delegation.
func actionsBlock(a workflow.Approval) *slack.ActionBlock {
	needComment := slices.Contains(a.Policy.RequireComment, workflow.ActionApprove)
	approveID, draftID := ActionApprove, ActionApproveDraft
	if needComment {
		approveID, draftID = ActionApproveComment, ActionApproveCommentDraft
	}
	var buttons []slack.BlockElement
	if len(a.Drafts) == 0 {
		buttons = append(buttons, button(approveID, "Approve", a.ID, slack.StylePrimary))
	}
	for i := range a.Drafts {
		style := slack.Style("")
		if i == 0 {
			style = slack.StylePrimary
		}
		buttons = append(buttons, button(draftID+strconv.Itoa(i), fmt.Sprintf("Approve draft %d", i+1), a.ID, style))
	}
	if !needComment {
		buttons = append(buttons, button(ActionApproveComment, "Approve with comment", a.ID, ""))
	}
	buttons = append(buttons, button(ActionReject, "Reject", a.ID, slack.StyleDanger))
	if len(a.RevisionPresets) > 0 {
		buttons = append(buttons, button(ActionRevise, "Request changes", a.ID, ""))
	}
	if a.AllowSkip {
		buttons = append(buttons, button(ActionSkip, "Skip", a.ID, ""))
	}
	if a.Policy.AllowDelegation {
		buttons = append(buttons, button(ActionDelegate, "Hand over", a.ID, ""))
	}
	return slack.NewActionBlock(a.ID, buttons...)
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
	for _, v := range a.ApprovalsOf(a.Decision.DraftIndex) {
		ids = append(ids, v.UserID)
	}
	return Mentions(ids)
}

func capitalized(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func button(actionID, text, value string, style slack.Style) *slack.ButtonBlockElement {
	b := slack.NewButtonBlockElement(actionID, value, plain(text))
	if style != "" {
		b = b.WithStyle(style)
	}
	return b
}

func outcomeText(a workflow.Approval) string {
	if a.Status == workflow.StatusCancelled {
		return cancelledOutcome(a)
	}
	d := a.Decision
	if a.Status == workflow.StatusExpired || d == nil || d.Action == workflow.ActionExpire {
		text := "⌛ *Expired*: the workflow stopped waiting (timed out or closed)"
		if d != nil && d.DecidedBy != "" && d.Action != workflow.ActionExpire {
			return text + " before the decision by " + Mention(d.DecidedBy) + " at " + Date(d.DecidedAt) + " reached it."
		}
		return text + " before anybody decided."
	}
	if DecidedByDeadline(a) {
		return fmt.Sprintf("⏰ *%s at the deadline*: nobody decided in time, so the request's onDeadline %s it at %s.",
			capitalized(DeadlineVerb(d.Action)), DeadlineVerb(d.Action), Date(d.DecidedAt))
	}
	byAt := " by " + Mention(d.DecidedBy) + " at " + Date(d.DecidedAt)
	switch d.Action {
	case workflow.ActionApprove:
		if a.Quorum() > 1 {
			byAt = " by " + approvers(a) + ", the last at " + Date(d.DecidedAt)
		}
		text := "✅ *Approved*" + byAt
		if i := ChosenDraft(a); i != nil {
			text = fmt.Sprintf("✅ *Approved draft %d*%s", *i+1, byAt)
		}
		if c := strings.TrimSpace(d.Text); c != "" && a.Quorum() == 1 {
			text, _ = part{before: text + "\n*Comment:* ", text: c, kind: plainText, max: maxSectionLen}.render(maxReasonJSON)
		}
		return text
	case workflow.ActionReject:
		text := "❌ *Rejected*" + byAt
		if reason := strings.TrimSpace(d.Text); reason != "" {
			text, _ = part{before: text + "\n*Reason:* ", text: reason, kind: plainText, max: maxSectionLen}.render(maxReasonJSON)
		}
		return text
	case workflow.ActionRevise:
		text, _ := part{before: "✏️ *Changes requested*" + byAt + ":\n> ", text: d.Feedback(), kind: quotedText, max: maxSectionLen}.render(maxReasonJSON)
		return text
	case workflow.ActionSkip:
		return "⏭️ *Skipped*" + byAt
	}
	return "*Decided*" + byAt
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

// Date renders t in the reader's time zone, with a UTC fallback.
func Date(t time.Time) string {
	return fmt.Sprintf("<!date^%d^{date_short_pretty} {time}|%s>", t.Unix(), t.UTC().Format("2006-01-02 15:04 UTC"))
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
