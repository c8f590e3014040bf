package workflow

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"
)

// maxOpenPerExecution bounds the open approvals Superseded looks at: an
// inline Map runs at most 40 iterations at once.
const maxOpenPerExecution = 100

// MaxReasonTextLen bounds a Cancellation's reason.
const MaxReasonTextLen = 200

// ClickedOn checks a click on the request message on against a: a button
// decides only the approval of the message it is on. An approval with no
// recorded message records on as its message (the notifier posted it but
// could not record it), so the message can show the outcome. A click on
// another message than the one recorded (a copy posted twice, or a button
// moved elsewhere) is EINVALID and changes nothing. A zero on checks
// nothing. It returns a as it now stands.
func (s *Service) ClickedOn(ctx context.Context, a Approval, on MessageRef) (Approval, error) {
	if on == (MessageRef{}) {
		return a, nil
	}
	if a.MessageTS == "" {
		recorded, err := s.setMessage(ctx, a.ID, on.Channel, on.TS)
		switch {
		case ErrorCode(err) == ECONFLICT: // recorded meanwhile: check against it
			a = errorApproval(err, a)
		case err != nil:
			return a, fmt.Errorf("record the message of approval %s from a click: %w", a.ID, err)
		default:
			a = s.audit(ctx, recorded)
		}
	}
	if a.Channel != on.Channel || a.MessageTS != on.TS {
		return a, refusal(EINVALID, WhyOtherMessage, []string{a.ID}, "This button is not on the request message of approval %s, so it changes nothing. Please use the buttons on the request message.", a.ID)
	}
	return a, nil
}

// Superseded returns the older requests newer replaces: pending approvals
// of the same execution and state, created before newer, whose task
// attempt is closed, because a Retry of the Task invoked the notifier again
// with a new token after an attempt that had posted its request. Requests
// whose task still waits (such as the iterations of an inline Map running
// the same state at once) are not replaced, nor are requests past their
// deadline (Recover expires those). Each is returned whole, for Cancel.
// It finds them with one indexed lookup of the execution's open approvals
// and one Resumer.Waiting per candidate. A failed check leaves that
// candidate out and is returned, joined, with what was found.
func (s *Service) Superseded(ctx context.Context, newer Approval) ([]Approval, error) {
	if newer.ExecutionARN == "" || newer.Status.Final() {
		return nil, nil
	}
	if s.resumer == nil {
		return nil, fmt.Errorf("approval service has no resumer configured")
	}
	open, err := s.store.ListOpen(ctx, newer.ExecutionARN, maxOpenPerExecution)
	if err != nil {
		return nil, fmt.Errorf("list the open approvals of execution %s: %w", newer.ExecutionARN, err)
	}
	now := s.Now()
	var found []Approval
	var errs []error
	for _, o := range open {
		if o.ID == newer.ID || o.StateName != newer.StateName || o.Status != StatusPending ||
			o.CreatedAt.After(newer.CreatedAt) || (!o.Deadline.IsZero() && !now.Before(o.Deadline)) {
			continue
		}
		a, err := s.store.Get(ctx, o.ID)
		if err != nil {
			errs = append(errs, fmt.Errorf("read approval %s: %w", o.ID, err))
			continue
		}
		if a.Status != StatusPending {
			continue
		}
		waiting, err := s.resumer.Waiting(ctx, a)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("check whether the task of approval %s still waits: %w", a.ID, err))
		case !waiting:
			found = append(found, a)
		}
	}
	return found, errors.Join(errs...)
}

// Cancel closes the pending approval with the ID without a decision, for
// the reason c gives; its task must no longer wait for it (Superseded
// checks that). It returns the cancelled approval, whose message then
// needs updating (QueueMessage). Errors: EINVALID (no reason, or one longer
// than MaxReasonTextLen), ENOTFOUND, ECONFLICT (not pending any more; the
// error carries the approval).
func (s *Service) Cancel(ctx context.Context, id string, c Cancellation) (Approval, error) {
	if c.Reason == "" || utf8.RuneCountInString(c.Reason) > MaxReasonTextLen {
		return Approval{}, Errorf(EINVALID, "a cancellation needs a reason of at most %d characters", MaxReasonTextLen)
	}
	a, err := s.cancel(ctx, id, c)
	if err != nil {
		return a, fmt.Errorf("cancel approval %s: %w", id, err)
	}
	return s.audit(ctx, a), nil
}

func (s *Service) cancel(ctx context.Context, id string, c Cancellation) (Approval, error) {
	now := s.Now().UTC()
	return s.store.Update(ctx, id, func(a *Approval) error { return a.Cancel(c, now) })
}

func cancelled(a Approval) error {
	msg := "This request was cancelled."
	if c := a.Cancellation; c != nil && c.Reason != "" {
		msg = "This request was cancelled: " + c.Reason + "."
	}
	return &Error{Code: ECANCELLED, Message: msg, Approval: &a}
}

// errorApproval is the approval a domain error carries, or fallback.
func errorApproval(err error, fallback Approval) Approval {
	var e *Error
	if errors.As(err, &e) && e.Approval != nil {
		return *e.Approval
	}
	return fallback
}
