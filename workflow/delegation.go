package workflow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Delegation is one hand-over of a request: From no longer decides it, To
// does.
type Delegation struct {
	From, To string
	At       time.Time
	// Told is when the hand-over's note was posted in the request's thread
	// (or taken on by a sweep to post); zero until then. A hand-over still
	// untold HandOverNoticeGrace after it was made makes its pending
	// approval due (Due): the replica that recorded it died or Slack refused
	// the note, and a sweep tells the delegate (RecoverReport.HandedOver).
	Told time.Time
}

// HandOverNoticeGrace is how long the replica that recorded a hand-over
// has to post its note before a sweep posts it.
const HandOverNoticeGrace = 30 * time.Second

// untold returns the indices of a's hand-overs whose note is not posted
// and whose grace ended by now.
func (a Approval) untold(now time.Time) []int {
	var out []int
	for i, d := range a.Delegations {
		if d.Told.IsZero() && !now.Before(d.At.Add(HandOverNoticeGrace)) {
			out = append(out, i)
		}
	}
	return out
}

// markTold records that the note of the hand-over made at at is posted;
// ErrUnchanged when it was already, or there is no such hand-over.
func (a *Approval) markTold(at, now time.Time) error {
	i := slices.IndexFunc(a.Delegations, func(d Delegation) bool { return d.At.Equal(at) })
	if i < 0 || !a.Delegations[i].Told.IsZero() {
		return ErrUnchanged
	}
	a.Delegations[i].Told = now
	return nil
}

// HandOverTold records that the note of the approval's hand-over made at
// at was posted in its thread, so that no sweep posts it again. A
// hand-over whose note is never recorded posted is posted by a sweep
// HandOverNoticeGrace after it was made.
func (s *Service) HandOverTold(ctx context.Context, id string, at time.Time) error {
	now := s.Now().UTC()
	_, err := s.store.Update(ctx, id, func(x *Approval) error { return x.markTold(at, now) })
	if err != nil && !errors.Is(err, ErrUnchanged) {
		return fmt.Errorf("record the hand-over note of approval %s posted: %w", id, err)
	}
	return nil
}

// Delegate hands the pending approval from the person from to the person
// to at now, recording the delegation: to may decide from now on, from
// may not (even through a user group), until it is handed back. Errors:
// EINVALID when the request allows no delegation, to is not a user ID, is
// from, is the requester (without AllowSelfApproval), or already
// approved, when from already approved (their approval stands), or when
// MaxDelegations were made; EFORBIDDEN when from handed it on already;
// ECONFLICT when it is not pending.
func (a *Approval) Delegate(from, to string, now time.Time) error {
	invalid := func(why Why, whyArgs []string, format string, args ...any) error {
		err := refusal(EINVALID, why, whyArgs, format, args...)
		err.Approval = a
		return err
	}
	if a.Status != StatusPending {
		return storeConflict(*a, "approval %s is %s, not pending", a.ID, a.Status)
	}
	if handedTo, ok := a.HandedTo(from); ok {
		return handedOff(*a, handedTo)
	}
	switch {
	case !a.Policy.AllowDelegation:
		return invalid(WhyNoDelegation, nil, "This request cannot be handed to somebody else.")
	case !IsUserID(to):
		return invalid(WhyPickDelegate, nil, "Pick one person to hand the request to.")
	case to == from:
		return invalid(WhyDelegateSelf, nil, "You cannot hand a request to yourself.")
	case to == a.RequestedBy && !a.Policy.AllowSelfApproval:
		return invalid(WhyDelegateAsker, []string{to}, "<@%s> requested this approval, so they cannot decide it.", to)
	case a.hasVoted(from):
		return invalid(WhyDelegatorVoted, nil, "You already approved this request, and your approval stands, so you cannot hand it on.")
	case a.hasVoted(to):
		return invalid(WhyDelegateVoted, []string{to}, "<@%s> already approved this request, so handing it to them adds nothing.", to)
	case len(a.Delegations) >= MaxDelegations:
		return invalid(WhyTooManyHandOver, []string{strconv.Itoa(MaxDelegations)}, "This request was handed on %d times already, which is as often as it can be.", MaxDelegations)
	}
	a.Delegations = append(a.Delegations, Delegation{From: from, To: to, At: now})
	a.record(AuditEvent{At: now, Type: EventDelegated, Actor: from, Users: []string{to}})
	return nil
}

// HandedTo reports whether user handed the request on, and to whom: the
// last delegation naming user has them as From.
func (a Approval) HandedTo(user string) (to string, ok bool) {
	for i := len(a.Delegations) - 1; i >= 0; i-- {
		switch d := a.Delegations[i]; user {
		case d.To:
			return "", false
		case d.From:
			return d.To, true
		}
	}
	return "", false
}

// isDelegate reports whether the request was handed to user (and user did
// not hand it on again).
func (a Approval) isDelegate(user string) bool {
	for i := len(a.Delegations) - 1; i >= 0; i-- {
		switch d := a.Delegations[i]; user {
		case d.To:
			return true
		case d.From:
			return false
		}
	}
	return false
}

// Escalated reports whether the escalation step was done: Policy.EscalateTo
// may decide.
func (a Approval) Escalated() bool {
	return slices.ContainsFunc(a.Steps, func(s Step) bool { return s.Kind == StepEscalate && !s.DoneAt.IsZero() })
}

// Deciders lists who may decide a now, as user and user-group IDs: its
// approvers and, once escalated, Policy.EscalateTo, without the users who
// handed it on and with those it was handed to; the requester only with
// AllowSelfApproval. A member of a listed group who handed the request on
// is still in the group's entry (CanDecide refuses them).
func (a Approval) Deciders() []string {
	ids := slices.Clone(a.Approvers)
	if a.Escalated() {
		ids = append(ids, a.Policy.EscalateTo...)
	}
	for _, d := range a.Delegations {
		ids = append(ids, d.To)
	}
	return slices.DeleteFunc(unique(ids), func(id string) bool {
		_, handed := a.HandedTo(id)
		return handed || (id == a.RequestedBy && !a.Policy.AllowSelfApproval)
	})
}

// StillToDecide is Deciders without the people whose approval is counted:
// whom a reminder mentions.
func (a Approval) StillToDecide() []string {
	return slices.DeleteFunc(a.Deciders(), a.hasVoted)
}

// handedOff is the EFORBIDDEN error for a person who handed a on to to.
func handedOff(a Approval, to string) error {
	err := refusal(EFORBIDDEN, WhyHandedOff, []string{to}, "You handed this request to <@%s>, so they decide it now.", to)
	err.Approval = &a
	return err
}

// Delegate hands the approval with the ID from the person from to the
// person to, from a button on the message on (zero: from elsewhere, as a
// modal), and returns the approval as it now stands. from must be able to
// decide it (CanDecide). Errors: those of CanDecide and ClickedOn,
// ENOTFOUND, those of Approval.Delegate, ECONFLICT (decided or being
// decided; the error carries the approval), EEXPIRED, ECANCELLED.
func (s *Service) Delegate(ctx context.Context, id, from, to string, on MessageRef) (Approval, error) {
	a, err := s.store.Get(ctx, id)
	if err != nil {
		return Approval{}, err
	}
	if a, err = s.ClickedOn(ctx, a, on); err != nil {
		return a, err
	}
	if err := s.CanDecide(ctx, a, from); err != nil {
		return a, err
	}
	if err := closedError(a); err != nil {
		return a, err
	}
	now := s.Now().UTC()
	stored, err := s.store.Update(ctx, a.ID, func(x *Approval) error { return x.Delegate(from, to, now) })
	switch ErrorCode(err) {
	case "":
		if err != nil {
			return a, fmt.Errorf("hand approval %s on: %w", a.ID, err)
		}
	case ECONFLICT:
		return s.lost(ctx, a.ID, err)
	default:
		return errorApproval(err, a), err
	}
	return s.audit(ctx, stored), nil
}

// closedError is the error for a decision or a hand-over on an approval
// that is not pending: ECONFLICT, EEXPIRED or ECANCELLED; nil while it is
// pending.
func closedError(a Approval) error {
	switch a.Status {
	case StatusDecided, StatusClaimed:
		return conflict(a)
	case StatusExpired:
		return expired(a)
	case StatusCancelled:
		return cancelled(a)
	}
	return nil
}
