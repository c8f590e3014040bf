package blocks

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/workflow"
)

// What a request message says about its policy and what happened to it
// before its outcome: the approvals counted towards a quorum, hand-overs,
// reminders, the escalation, and what its deadline will do.

// maxCommentLen bounds a vote's comment as the message quotes it; the
// execution receives it whole.
const maxCommentLen = 300

// statusBlock is the section that shows a's progress and history, or nil
// when there is nothing to say (a request with quorum 1 and no step done).
func statusBlock(a workflow.Approval) slack.Block {
	lines := statusLines(a)
	if len(lines) == 0 {
		return nil
	}
	units := make([]string, 0, len(lines))
	for i, l := range lines {
		if i > 0 {
			l = "\n" + l
		}
		units = append(units, l)
	}
	text, _ := fit(units, maxSectionLen, maxReasonJSON)
	return slack.NewSectionBlock(mrkdwn(text), nil, nil, slack.SectionBlockOptionBlockID("status"))
}

// statusLines are the status section's lines, each whole mrkdwn.
func statusLines(a workflow.Approval) []string {
	lines := quorumLines(a)
	type event struct {
		at   time.Time
		text string
	}
	var history []event
	for _, d := range a.Delegations {
		history = append(history, event{d.At, fmt.Sprintf("↪️ %s handed this request to %s · %s", Mention(d.From), Mention(d.To), Date(d.At))})
	}
	for _, s := range a.Steps {
		switch {
		case s.DoneAt.IsZero():
		case s.Kind == workflow.StepRemind:
			history = append(history, event{s.DoneAt, "🔔 Reminded who may still decide · " + Date(s.DoneAt)})
		case s.Kind == workflow.StepEscalate:
			history = append(history, event{s.DoneAt, "⏫ Escalated: " + Mentions(a.Policy.EscalateTo) + " may decide too · " + Date(s.DoneAt)})
		}
	}
	slices.SortStableFunc(history, func(x, y event) int { return x.at.Compare(y.at) })
	for _, e := range history {
		lines = append(lines, e.text)
	}
	if a.Status != workflow.StatusPending {
		return lines
	}
	for _, s := range a.Steps {
		switch {
		case !s.DoneAt.IsZero():
		case s.Kind == workflow.StepEscalate:
			lines = append(lines, "⏫ Escalates to "+Mentions(a.Policy.EscalateTo)+" at "+Date(s.At)+" if still open")
		case s.Kind == workflow.StepDeadline:
			lines = append(lines, fmt.Sprintf("⏰ If nobody decides by %s, it is *%s* automatically", Date(s.At), DeadlineVerb(a.Policy.OnDeadline)))
		}
	}
	return lines
}

// quorumLines show how far the approvals of each draft are, with their
// comments; nothing when one approval decides.
func quorumLines(a workflow.Approval) []string {
	q := a.Quorum()
	if q == 1 {
		return nil
	}
	need := fmt.Sprintf("🗳️ Needs *%d approvals*", q)
	if len(a.Drafts) > 1 {
		need += " of the same draft; approvals of different drafts do not add up"
	}
	lines := []string{need + "."}
	drafts := []int{workflow.NoDraft}
	if len(a.Drafts) > 0 {
		drafts = drafts[:0]
		for i := range a.Drafts {
			drafts = append(drafts, i)
		}
	}
	for _, d := range drafts {
		votes := a.ApprovalsOf(d)
		if len(votes) == 0 {
			continue
		}
		who := make([]string, 0, len(votes))
		for _, v := range votes {
			who = append(who, Mention(v.UserID))
		}
		of := ""
		if d != workflow.NoDraft {
			of = fmt.Sprintf("Draft %d: ", d+1)
		}
		lines = append(lines, fmt.Sprintf("%s*%d of %d approvals*: %s", of, len(votes), q, strings.Join(who, ", ")))
		for _, v := range votes {
			if c := strings.TrimSpace(v.Comment); c != "" {
				lines = append(lines, "💬 "+Mention(v.UserID)+": "+fitEscaped(oneLine(c), maxCommentLen))
			}
		}
	}
	return lines
}

// Progress is a's quorum progress in words, such as "1 of 2 approvals";
// "" when one approval decides.
func Progress(a workflow.Approval) string {
	q := a.Quorum()
	if q == 1 {
		return ""
	}
	best := 0
	for d := workflow.NoDraft; d < max(len(a.Drafts), 0); d++ {
		best = max(best, len(a.ApprovalsOf(d)))
	}
	return fmt.Sprintf("%d of %d approvals", best, q)
}

// deadlineVerb is what onDeadline does, as a participle.
func DeadlineVerb(action workflow.Action) string {
	if action == workflow.ActionSkip {
		return "skipped"
	}
	return "rejected"
}

// decidedByDeadline reports whether a's decision was taken by its
// onDeadline rather than by a person.
func DecidedByDeadline(a workflow.Approval) bool {
	return a.Decision != nil && a.Decision.DecidedBy == workflow.DecidedByDeadline
}

// mentions formats user and user-group IDs, comma-separated.
func Mentions(ids []string) string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, Mention(id))
	}
	return cmp.Or(strings.Join(out, ", "), "nobody")
}

// oneLine joins the lines of s with " — ".
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " — ")), " ")
}
