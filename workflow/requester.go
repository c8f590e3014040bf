package workflow

import (
	"context"
	"fmt"
	"strings"
)

// The requester's side of an approval: taking an open request back
// (Withdraw), being told how it ended (ClaimRequesterNotice), and the open
// requests a person asked for (RequestedBy).

// Withdraw takes the pending approval with the ID back for its requester
// user, exactly once, from a button on the message on (zero: from their
// App Home): the execution fails with error ErrorWithdrawn and the cause
// "Withdrawn by <user>: <reason>" (Decision.Failure), and the approval is
// decided with ActionWithdraw, like a rejection. It returns the approval
// as it now stands.
//
// Errors: ENOTFOUND; EFORBIDDEN when user did not request it (nothing
// changes); EINVALID for a reason over MaxReasonLen or a button on another
// message; ECONFLICT, EEXPIRED, ECANCELLED when it is no longer pending
// (the error carries the approval). Any other error leaves it claimed; a
// later call or Recover completes it.
func (s *Service) Withdraw(ctx context.Context, id, user, reason string, on MessageRef) (Approval, error) {
	c, err := s.ClaimWithdrawal(ctx, id, user, reason, on)
	if err != nil {
		return c.Approval, err
	}
	return s.Resume(ctx, c)
}

// ClaimWithdrawal is Withdraw up to its conditional write, as Claim is
// DecideOn's: the withdrawal is recorded (the approval claimed) and
// Resume fails the execution.
func (s *Service) ClaimWithdrawal(ctx context.Context, id, user, reason string, on MessageRef) (Claimed, error) {
	a, err := s.store.Get(ctx, id)
	if err != nil {
		return Claimed{}, err
	}
	if a, err = s.ClickedOn(ctx, a, on); err != nil {
		return Claimed{Approval: a}, err
	}
	now := s.Now().UTC()
	d := Decision{Action: ActionWithdraw, DraftIndex: NoDraft, Text: strings.TrimSpace(reason), DecidedBy: user, DecidedAt: now}
	if err := d.Validate(a); err != nil {
		return Claimed{Approval: a}, err
	}
	if err := closedError(a); err != nil {
		return Claimed{Approval: a}, err
	}
	recorded, err := s.store.Update(ctx, a.ID, func(x *Approval) error { return x.Claim(d, now) })
	if err != nil {
		return s.lostClaim(ctx, a.ID, err)
	}
	return s.claimed(recorded), nil
}

// ClaimRequesterNotice claims the one notice the requester of the final
// approval with the ID gets about its outcome: it reports true, once,
// to the one caller that is to send it; false when the approval tells
// nobody (no requester, NotifyRequester off, not final) or the notice
// was claimed already. A claimed notice that then fails to send is not
// sent again (at most once).
func (s *Service) ClaimRequesterNotice(ctx context.Context, id string) (Approval, bool, error) {
	now := s.Now().UTC()
	a, err := s.store.Update(ctx, id, func(x *Approval) error {
		if !x.Status.Final() || !x.NotifyRequester || x.RequestedBy == "" || !x.RequesterToldAt.IsZero() {
			return ErrUnchanged
		}
		x.RequesterToldAt = now
		return nil
	})
	if err != nil {
		return a, false, fmt.Errorf("claim the requester's notice of approval %s: %w", id, err)
	}
	return a, a.RequesterToldAt.Equal(now), nil
}

// RequestedBy lists the pending approvals user asked for (RequestedBy),
// oldest first, at most limit of them, whole. It reads the requester's
// own entries (Store.ListRequestedBy), never the whole queue.
func (s *Service) RequestedBy(ctx context.Context, user string, limit int) ([]Approval, error) {
	if !IsUserID(user) {
		return nil, Errorf(EINVALID, "a requester is a Slack user")
	}
	mine, err := s.store.ListRequestedBy(ctx, user, limit)
	if err != nil {
		return nil, fmt.Errorf("list the pending approvals %s asked for: %w", user, err)
	}
	return mine, nil
}
