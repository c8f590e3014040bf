package blocks

import (
	"cmp"
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
	l := a.Locale
	for _, d := range a.Delegations {
		history = append(history, event{d.At, T(l, KStHanded, Mention(d.From), Mention(d.To), Date(l, d.At))})
	}
	for _, s := range a.Steps {
		switch {
		case s.DoneAt.IsZero():
		case s.Kind == workflow.StepRemind:
			history = append(history, event{s.DoneAt, T(l, KStReminded, Date(l, s.DoneAt))})
		case s.Kind == workflow.StepEscalate:
			history = append(history, event{s.DoneAt, T(l, KStEscalated, Mentions(l, a.Policy.EscalateTo), Date(l, s.DoneAt))})
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
			lines = append(lines, T(l, KStEscalates, Mentions(l, a.Policy.EscalateTo), Date(l, s.At)))
		case s.Kind == workflow.StepDeadline && a.Policy.OnDeadline == workflow.ActionSkip:
			lines = append(lines, T(l, KStDeadlineSkipped, Date(l, s.At)))
		case s.Kind == workflow.StepDeadline:
			lines = append(lines, T(l, KStDeadlineRejected, Date(l, s.At)))
		}
	}
	return lines
}

// quorumLines show how far the approvals of each draft (as offered, or
// as somebody edited it) are, with their comments; nothing when one
// approval decides.
func quorumLines(a workflow.Approval) []string {
	l := a.Locale
	q := a.Quorum()
	if q == 1 {
		return nil
	}
	need := T(l, KQNeeds, q)
	if len(a.Drafts) > 1 {
		need = T(l, KQNeedsDrafts, q)
	}
	lines := []string{need}
	versions := a.Versions()
	slices.SortStableFunc(versions, func(x, y workflow.Vote) int {
		return cmp.Or(cmp.Compare(x.DraftIndex, y.DraftIndex), cmp.Compare(min(len(x.Edited), 1), min(len(y.Edited), 1)))
	})
	for _, version := range versions {
		votes := a.VotesFor(version.DraftIndex, version.Edited)
		who := make([]string, 0, len(votes))
		for _, v := range votes {
			who = append(who, Mention(v.UserID))
		}
		names := strings.Join(who, T(l, KListSep))
		switch {
		case version.DraftIndex == workflow.NoDraft:
			lines = append(lines, T(l, KQProgress, len(votes), q, names))
		case version.Edited != "":
			lines = append(lines, T(l, KQProgressEdited, len(votes), q, names, version.DraftIndex+1, Mention(version.UserID)),
				T(l, KQEditedText, fitEscaped(oneLine(version.Edited), maxCommentLen)))
		default:
			lines = append(lines, T(l, KQProgressDraft, len(votes), q, names, version.DraftIndex+1))
		}
		for _, v := range votes {
			if c := strings.TrimSpace(v.Comment); c != "" {
				lines = append(lines, T(l, KQComment, Mention(v.UserID), fitEscaped(oneLine(c), maxCommentLen)))
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
	for _, v := range a.Versions() {
		best = max(best, len(a.VotesFor(v.DraftIndex, v.Edited)))
	}
	return T(a.Locale, KProgress, best, q)
}

// decidedByDeadline reports whether a's decision was taken by its
// onDeadline rather than by a person.
func DecidedByDeadline(a workflow.Approval) bool {
	return a.Decision != nil && a.Decision.DecidedBy == workflow.DecidedByDeadline
}

// Mentions formats user and user-group IDs as a list in locale.
func Mentions(locale string, ids []string) string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, Mention(id))
	}
	return cmp.Or(strings.Join(out, T(locale, KListSep)), T(locale, KNobody))
}

// oneLine joins the lines of s with " — ".
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " — ")), " ")
}
