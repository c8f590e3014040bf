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
	Comment    string
	At         time.Time
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
	if d.Action != ActionApprove || a.Quorum() == 1 {
		return a.Claim(d, now)
	}
	if i := slices.IndexFunc(a.Votes, func(v Vote) bool { return v.UserID == d.DecidedBy }); i >= 0 {
		if a.Votes[i].DraftIndex == d.DraftIndex {
			return ErrUnchanged
		}
		err := Errorf(EINVALID, "You already approved %s; approvals of different drafts do not add up, and yours stays where it is.", draftName(a.Votes[i].DraftIndex))
		err.Approval = a
		return err
	}
	if n := a.commentBytes() + len(d.Text); n > MaxVoteCommentBytes {
		err := Errorf(EINVALID, "This request holds as many comments as it can; approve without a comment, or with a shorter one.")
		err.Approval = a
		return err
	}
	a.Votes = append(a.Votes, Vote{UserID: d.DecidedBy, DraftIndex: d.DraftIndex, Comment: d.Text, At: now})
	a.record(AuditEvent{At: now, Type: EventVoted, Actor: d.DecidedBy, Action: ActionApprove, DraftIndex: draftOf(d), Comment: d.Text})
	if len(a.ApprovalsOf(d.DraftIndex)) < a.Quorum() {
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
		n += len(v.Comment)
	}
	return n
}

// ApprovalsOf returns the votes for the draft (NoDraft on a request
// without drafts), in the order they came.
func (a Approval) ApprovalsOf(draft int) []Vote {
	var out []Vote
	for _, v := range a.Votes {
		if v.DraftIndex == draft {
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
