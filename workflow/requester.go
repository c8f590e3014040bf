package workflow

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
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
	a, err := s.store.Get(ctx, id)
	if err != nil {
		return Approval{}, err
	}
	if a, err = s.ClickedOn(ctx, a, on); err != nil {
		return a, err
	}
	now := s.Now().UTC()
	d := Decision{Action: ActionWithdraw, DraftIndex: NoDraft, Text: strings.TrimSpace(reason), DecidedBy: user, DecidedAt: now}
	if err := d.Validate(a); err != nil {
		return a, err
	}
	if err := closedError(a); err != nil {
		return a, err
	}
	recorded, err := s.store.Update(ctx, a.ID, func(x *Approval) error { return x.Claim(d, now) })
	if err != nil {
		return s.lost(ctx, a.ID, err)
	}
	final, err := s.resume(ctx, recorded)
	return s.audit(ctx, final), err
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
// oldest first, at most limit of them, as Approval.Listed.
func (s *Service) RequestedBy(ctx context.Context, user string, limit int) ([]Approval, error) {
	if !IsUserID(user) {
		return nil, Errorf(EINVALID, "a requester is a Slack user")
	}
	all, err := s.store.List(ctx, QueuePending, time.Time{}, listAll)
	if err != nil {
		return nil, fmt.Errorf("list pending approvals: %w", err)
	}
	mine := slices.DeleteFunc(all, func(a Approval) bool { return a.RequestedBy != user || a.Status != StatusPending })
	slices.SortFunc(mine, func(a, b Approval) int { return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID)) })
	return mine[:min(len(mine), limit)], nil
}
