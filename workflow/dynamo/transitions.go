package dynamo

import (
	"context"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// Claim records d and moves a pending approval to claimed at now, counting
// one attempt. An approval that is not pending is ECONFLICT; a missing one
// ENOTFOUND.
func (s *Store) Claim(ctx context.Context, id string, d workflow.Decision, now time.Time) (workflow.Approval, error) {
	return s.modify(ctx, id, "claim", func(a *workflow.Approval) error {
		if a.Status != workflow.StatusPending {
			return conflict(*a, "approval %s is %s, not pending", a.ID, a.Status)
		}
		a.Status = workflow.StatusClaimed
		a.Decision = &d
		a.ClaimedAt = now
		a.Attempts++
		return nil
	})
}

// Reclaim takes over the claim taken at claimedAt, keeping its decision:
// the claim is now from now, and counts one more attempt. An approval that
// is not claimed, or was claimed at another time, is ECONFLICT.
func (s *Store) Reclaim(ctx context.Context, id string, claimedAt, now time.Time) (workflow.Approval, error) {
	return s.modify(ctx, id, "reclaim", func(a *workflow.Approval) error {
		if a.Status != workflow.StatusClaimed || !a.ClaimedAt.Equal(claimedAt) {
			return conflict(*a, "approval %s is no longer held by the claim being taken over", a.ID)
		}
		a.ClaimedAt = now
		a.Attempts++
		return nil
	})
}

// Finish moves a claimed approval to the final status at now and deletes
// its task token from the item. A status that is not final is EINVALID; an
// approval that is not claimed ECONFLICT.
func (s *Store) Finish(ctx context.Context, id string, status workflow.Status, now time.Time) (workflow.Approval, error) {
	if !status.Final() {
		return workflow.Approval{}, workflow.Errorf(workflow.EINVALID, "cannot finish approval %s as %q: not a final status", id, status)
	}
	return s.modify(ctx, id, "finish", func(a *workflow.Approval) error {
		if a.Status != workflow.StatusClaimed {
			return conflict(*a, "approval %s is %s, not claimed", a.ID, a.Status)
		}
		a.Close(status, now)
		return nil
	})
}

// SetMessage records where the request message was posted, once. The
// same message again changes nothing; another message than the one
// recorded is ECONFLICT. A final approval whose message is recorded late
// lands on workflow.QueueMessage, so its message gets fixed.
func (s *Store) SetMessage(ctx context.Context, id, channel, ts string) (workflow.Approval, error) {
	return s.modify(ctx, id, "record the message of", func(a *workflow.Approval) error {
		switch {
		case a.Channel == channel && a.MessageTS == ts:
			return errUnchanged
		case a.MessageTS != "":
			return conflict(*a, "approval %s has another message recorded", a.ID)
		}
		a.Channel, a.MessageTS = channel, ts
		a.MessageSynced = false
		return nil
	})
}

// Cancel closes a pending approval without a decision, recording c, and
// deletes its task token from the item. An approval that is not pending is
// ECONFLICT.
func (s *Store) Cancel(ctx context.Context, id string, c workflow.Cancellation, now time.Time) (workflow.Approval, error) {
	return s.modify(ctx, id, "cancel", func(a *workflow.Approval) error {
		if a.Status != workflow.StatusPending {
			return conflict(*a, "approval %s is %s, not pending", a.ID, a.Status)
		}
		a.Cancellation = &c
		a.Close(workflow.StatusCancelled, now)
		return nil
	})
}

// MarkMessageSynced records that the Slack message shows the final status,
// which takes the approval off workflow.QueueMessage. An approval that is
// not final yet is ECONFLICT.
func (s *Store) MarkMessageSynced(ctx context.Context, id string) error {
	_, err := s.modify(ctx, id, "mark the message synced of", func(a *workflow.Approval) error {
		switch {
		case !a.Status.Final():
			return conflict(*a, "approval %s is %s, not final", a.ID, a.Status)
		case a.MessageSynced:
			return errUnchanged
		}
		a.MessageSynced = true
		return nil
	})
	return err
}

// MessageFailed records a failed update of the approval's message
// (workflow.Approval.MessageFailed), which moves it back on
// workflow.QueueMessage to its retry time, or off it when it gives up. An
// approval not on workflow.QueueMessage is ECONFLICT.
func (s *Store) MessageFailed(ctx context.Context, id string, now time.Time, p workflow.MessageRetry) (workflow.Approval, error) {
	return s.modify(ctx, id, "record a failed message update of", func(a *workflow.Approval) error {
		if a.Queue() != workflow.QueueMessage {
			return conflict(*a, "approval %s waits for no message update", a.ID)
		}
		a.MessageFailed(now, p)
		return nil
	})
}
