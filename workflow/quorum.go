package workflow

import (
	"slices"
	"strconv"
	"time"
)

// Vote is one person's approval, counted towards the quorum.
type Vote struct {
	UserID string
	// DraftIndex is the draft approved; NoDraft when the request has none.
	DraftIndex int
	// Edited is the draft as this person edited it before approving it;
	// "" for the draft as offered. An edited approval counts only
	// towards the same text.
	Edited  string
	Comment string
	At      time.Time
}

// Decide applies d, a person's decision (with DecidedAt), to the pending
// approval at now. An approval counts once per person: it is recorded as
// their vote, and the vote that brings the approvals of one draft to the
// quorum claims the approval (Claim), as any other action does at once.
// Until then the approval stays pending with one more vote. The same
// approval again is ErrUnchanged; an approval of another draft than the
// person's earlier one is EINVALID (approvals of different drafts never
// add up, and a person's stays where it is). A person who handed the
// request on is EFORBIDDEN.
func (a *Approval) Decide(d Decision, now time.Time) error {
	if a.Status != StatusPending {
		return storeConflict(*a, "approval %s is %s, not pending", a.ID, a.Status)
	}
	if to, ok := a.HandedTo(d.DecidedBy); ok {
		return handedOff(*a, to)
	}
	if d.Edited != "" && d.DraftIndex >= 0 && d.DraftIndex < len(a.Drafts) && d.Edited == a.Drafts[d.DraftIndex] {
		d.Edited = "" // unchanged: the draft as offered
	}
	if d.Action != ActionApprove || a.Quorum() == 1 {
		return a.Claim(d, now)
	}
	if i := slices.IndexFunc(a.Votes, func(v Vote) bool { return v.UserID == d.DecidedBy }); i >= 0 {
		if a.Votes[i].DraftIndex == d.DraftIndex && a.Votes[i].Edited == d.Edited {
			return ErrUnchanged
		}
		err := Errorf(EINVALID, "You already approved %s; approvals of different drafts do not add up, and yours stays where it is.", draftName(a.Votes[i].DraftIndex))
		err.Why, err.Args = WhyVotedElsewhere, []string{strconv.Itoa(max(a.Votes[i].DraftIndex+1, 0))}
		err.Approval = a
		return err
	}
	if n := a.commentBytes() + len(d.Text) + len(d.Edited); n > MaxVoteCommentBytes {
		err := Errorf(EINVALID, "This request holds as many comments as it can; approve without a comment, or with a shorter one.")
		err.Why = WhyCommentsFull
		err.Approval = a
		return err
	}
	a.Votes = append(a.Votes, Vote{UserID: d.DecidedBy, DraftIndex: d.DraftIndex, Edited: d.Edited, Comment: d.Text, At: now})
	a.record(AuditEvent{At: now, Type: EventVoted, Actor: d.DecidedBy, Action: ActionApprove, DraftIndex: draftOf(d), Comment: d.Text, Edited: d.Edited != ""})
	if len(a.VotesFor(d.DraftIndex, d.Edited)) < a.Quorum() {
		return nil
	}
	return a.Claim(d, now)
}

// MaxVoteCommentBytes bounds the comments of an approval's votes
// together, so that its record (which also holds them in its audit events
// until they are written) stays well within a DynamoDB item's 400 KB.
const MaxVoteCommentBytes = 64 << 10

func (a Approval) commentBytes() int {
	n := 0
	for _, v := range a.Votes {
		n += len(v.Comment) + len(v.Edited)
	}
	return n
}

// ApprovalsOf returns the votes for the draft (NoDraft on a request
// without drafts) as offered, in the order they came: approvals of an
// edited text are not among them (VotesFor).
func (a Approval) ApprovalsOf(draft int) []Vote { return a.VotesFor(draft, "") }

// VotesFor returns the votes for the draft as edited into edited (""
// for the draft as offered), in the order they came.
func (a Approval) VotesFor(draft int, edited string) []Vote {
	var out []Vote
	for _, v := range a.Votes {
		if v.DraftIndex == draft && v.Edited == edited {
			out = append(out, v)
		}
	}
	return out
}

// Versions are the texts approvals were counted towards, in the order
// their first vote came: each draft as offered, or as somebody edited it.
func (a Approval) Versions() []Vote {
	var out []Vote
	for _, v := range a.Votes {
		if !slices.ContainsFunc(out, func(x Vote) bool { return x.DraftIndex == v.DraftIndex && x.Edited == v.Edited }) {
			out = append(out, v)
		}
	}
	return out
}

// hasVoted reports whether user's approval is counted.
func (a Approval) hasVoted(user string) bool {
	return slices.ContainsFunc(a.Votes, func(v Vote) bool { return v.UserID == user })
}

func draftName(i int) string {
	if i < 0 {
		return "this request"
	}
	return "draft " + strconv.Itoa(i+1)
}
