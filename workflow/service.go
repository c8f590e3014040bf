package workflow

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Store keeps approvals. Implementations must make every change atomic
// (conditional writes), because several bot replicas and Lambda retries act
// on the same approval at once. A missing approval is an *Error with code
// ENOTFOUND.
type Store interface {
	// Create stores a pending approval unless one already exists for the
	// same task token; then it returns that one and created=false.
	Create(ctx context.Context, a Approval) (stored Approval, created bool, err error)
	// Get returns the approval with the ID.
	Get(ctx context.Context, id string) (Approval, error)
	// Update applies change to the approval with the ID and stores the
	// result if the stored approval did not change in between; if it did,
	// change is applied again, to the newer one. change gets a copy of its
	// own (Approval.Clone) and must have no other effect, since it may run
	// several times. An error from change is returned as it is and stores
	// nothing; ErrUnchanged stores nothing and returns the approval with a
	// nil error. Update returns the approval as stored. The stores keep no
	// rule of their own: every rule is in the changes (Approval.Claim, …).
	Update(ctx context.Context, id string, change func(*Approval) error) (Approval, error)
	// List returns up to limit approvals on the queue whose QueuedAt is
	// not after until (zero: any), by QueuedAt, each as Approval.Listed:
	// without the task token or the message body. The list is eventually
	// consistent; act on it with Update, and Get an approval before
	// rendering or resuming it.
	List(ctx context.Context, q Queue, until time.Time, limit int) ([]Approval, error)
	// ListOpen returns up to limit open (pending or claimed) approvals of
	// the execution, oldest first, as Approval.Listed, from an index that
	// holds only open approvals (no scan). It is eventually consistent, like
	// List.
	ListOpen(ctx context.Context, executionARN string, limit int) ([]Approval, error)
}

// Resumer resumes paused executions. Both methods return nil when the
// result reached the execution, on this call or an earlier one; an *Error
// with code EEXPIRED when the task had timed out or was closed by something
// else; any other error is transient and the call may be repeated.
type Resumer interface {
	Succeed(ctx context.Context, a Approval, output []byte) error
	Fail(ctx context.Context, a Approval, errorName, cause string) error
	// Waiting reports whether the task attempt a's token belongs to still
	// waits for a result (Step Functions accepts a heartbeat on it). false
	// with a nil error means the attempt is closed: it timed out, failed
	// (a Retry starts a new attempt with a new token), or its execution
	// ended. Any error is transient. It changes nothing.
	Waiting(ctx context.Context, a Approval) (bool, error)
}

// Directory answers who is in a user group.
type Directory interface {
	// GroupMembers returns the user IDs in the Slack user group.
	GroupMembers(ctx context.Context, groupID string) ([]string, error)
}

// Service requests and decides approvals. It is safe for concurrent use;
// exactly-once resumes come from the Store's conditional writes, not from
// locks in this process.
type Service struct {
	store     Store
	resumer   Resumer
	directory Directory

	// Now is the clock; tests replace it.
	Now func() time.Time
	// ClaimLease is how long a claim is trusted to be in progress before
	// another attempt may take it over.
	ClaimLease time.Duration
	// Retention is how long a record is kept after its deadline.
	Retention time.Duration
	// ExpiryGrace is how long after the deadline a pending approval is
	// expired by Recover, so Step Functions' own timeout comes first.
	ExpiryGrace time.Duration
	// RecoverBudget bounds the work Recover does on one approval (take
	// over, resume, record), independently of Recover's own context.
	RecoverBudget time.Duration
	// MessageRetry shapes the retries of failed message updates.
	MessageRetry MessageRetry

	// Audit, when set, receives every audit event right after the change
	// that made it (and Recover writes those it could not). Without it the
	// events wait in each approval's record for a Service that has one.
	Audit AuditLog
	// OnAuditError, when set, is told of every failed audit write after a
	// change (the change itself stands; Recover writes the events later).
	OnAuditError func(a Approval, err error)

	// Executions, when set, lets Recover close pending approvals whose
	// execution ended without CloseExecution being called (its status
	// change event was lost), asking at the pace ExecutionChecks sets.
	Executions      Executions
	ExecutionChecks ExecutionChecks
	checked         *checkLog
}

// Defaults for a Service.
const (
	DefaultClaimLease  = 60 * time.Second
	DefaultRetention   = 90 * 24 * time.Hour
	DefaultExpiryGrace = time.Minute
	// DefaultRecoverBudget covers a take-over, a resume (whose history
	// check may read several pages) and the record of the outcome.
	DefaultRecoverBudget = 30 * time.Second
	// executionMaxAge is Step Functions' one-year limit: without a timeout
	// a task waits at most that long.
	executionMaxAge = 365 * 24 * time.Hour
	// listAll reads a whole queue (the store pages through it): the
	// sweeper must see every overdue approval, not the oldest thousand.
	listAll = math.MaxInt32
)

// NewService returns a Service. resumer and directory may be nil for
// callers that only request approvals (the notifier).
func NewService(store Store, resumer Resumer, directory Directory) *Service {
	return &Service{
		store:         store,
		resumer:       resumer,
		directory:     directory,
		Now:           time.Now,
		ClaimLease:    DefaultClaimLease,
		Retention:     DefaultRetention,
		ExpiryGrace:   DefaultExpiryGrace,
		RecoverBudget: DefaultRecoverBudget,
		MessageRetry:  DefaultMessageRetry,

		ExecutionChecks: DefaultExecutionChecks,
		checked:         &checkLog{at: map[string]time.Time{}},
	}
}

// NewApprovalID returns "ap_" followed by 128 random bits in base32.
func NewApprovalID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand docs)
	return "ap_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// Request stores a validated request as a pending approval, with its
// policy and deadline lifecycle (Policy, Steps). A second call with the
// same task token returns the stored approval and created=false.
func (s *Service) Request(ctx context.Context, r Request) (a Approval, created bool, err error) {
	if err := r.Validate(); err != nil {
		return Approval{}, false, err
	}
	now := s.Now().UTC()
	a = Approval{
		ID:              NewApprovalID(),
		TaskToken:       r.TaskToken,
		ExecutionARN:    r.ExecutionARN,
		StateName:       r.StateName,
		Channel:         r.Channel,
		ThreadTS:        r.ThreadTS,
		Approvers:       unique(r.Approvers),
		RequestedBy:     r.RequestedBy,
		Title:           r.Title,
		Summary:         r.Summary,
		Fields:          r.Fields,
		Drafts:          r.Drafts,
		RevisionPresets: r.RevisionPresets,
		AllowSkip:       r.AllowSkip,
		AllowEdit:       r.AllowEdit,
		NotifyRequester: r.notifies(),
		Confirm:         slices.Clone(r.Confirm),
		Locale:          r.Locale,
		CreatedAt:       now,
		Status:          StatusPending,
		Policy:          r.policy(),
	}
	end := now.Add(executionMaxAge)
	if r.TimeoutSeconds > 0 {
		a.Deadline = now.Add(time.Duration(r.TimeoutSeconds) * time.Second)
		end = a.Deadline
	}
	a.PurgeAt = end.Add(s.Retention)
	a.Steps = r.steps(now, a.Deadline)
	if a.Policy.Heartbeat > 0 {
		a.HeartbeatAt = now.Add(a.Policy.Heartbeat)
	}
	requested := AuditEvent{
		At: now, Type: EventRequested, Actor: r.RequestedBy, Users: a.Approvers,
		ExecutionARN: a.ExecutionARN, StateName: a.StateName, Title: a.Title, RequestedBy: a.RequestedBy,
		Quorum: a.Policy.Quorum, EscalateTo: a.Policy.EscalateTo, OnDeadline: a.Policy.OnDeadline, Channel: a.Channel,
	}
	if deadline := a.Deadline; !deadline.IsZero() {
		requested.Deadline = &deadline
	}
	a.record(requested)
	a, created, err = s.store.Create(ctx, a)
	if err != nil {
		return Approval{}, false, fmt.Errorf("store approval: %w", err)
	}
	if created {
		a = s.audit(ctx, a)
	}
	return a, created, nil
}

// unique returns ids without repeats, in their first order.
func unique(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// RecordMessage records where the request message for the approval was
// posted. The same message again changes nothing; another one than the
// message recorded is ECONFLICT (carrying the approval).
func (s *Service) RecordMessage(ctx context.Context, id, channel, ts string) (Approval, error) {
	a, err := s.setMessage(ctx, id, channel, ts)
	if err != nil {
		return Approval{}, fmt.Errorf("record message of approval %s: %w", id, err)
	}
	return s.audit(ctx, a), nil
}

func (s *Service) setMessage(ctx context.Context, id, channel, ts string) (Approval, error) {
	now := s.Now().UTC()
	return s.store.Update(ctx, id, func(a *Approval) error { return a.SetMessage(channel, ts, now) })
}

// Get returns the approval with the ID.
func (s *Service) Get(ctx context.Context, id string) (Approval, error) {
	return s.store.Get(ctx, id)
}

// CanDecide returns nil if user may decide a: a listed approver or a member
// of a listed user group, a delegate, or, once escalated, one of (or a
// member of a group in) EscalateTo; never somebody who handed the request
// on, nor the requester without AllowSelfApproval. Otherwise an *Error
// with code EFORBIDDEN explains why; a failed group lookup is returned as
// is. A listed approval that is Amended must be read in full first.
func (s *Service) CanDecide(ctx context.Context, a Approval, user string) error {
	if user == "" {
		return refusal(EFORBIDDEN, WhyUnknownUser, nil, "Only a known Slack user can decide an approval.")
	}
	if user == a.RequestedBy && !a.Policy.AllowSelfApproval {
		return refusal(EFORBIDDEN, WhyRequester, nil, "You requested this approval, so somebody else has to decide it.")
	}
	if to, ok := a.HandedTo(user); ok {
		return handedOff(a, to)
	}
	eligible := slices.Clone(a.Approvers)
	if a.Escalated() {
		eligible = append(eligible, a.Policy.EscalateTo...)
	}
	if a.isDelegate(user) || slices.Contains(eligible, user) {
		return nil
	}
	for _, group := range eligible {
		if !IsGroupID(group) || s.directory == nil {
			continue
		}
		members, err := s.directory.GroupMembers(ctx, group)
		if err != nil {
			return fmt.Errorf("look up members of user group %s: %w", group, err)
		}
		if slices.Contains(members, user) {
			return nil
		}
	}
	return refusal(EFORBIDDEN, WhyNotApprover, nil, "You are not one of the approvers of this request.")
}

// Decide is DecideOn with no message to check: for callers that do not
// click a message (tests, tools).
func (s *Service) Decide(ctx context.Context, id string, d Decision) (Approval, error) {
	return s.DecideOn(ctx, id, d, MessageRef{})
}

// DecideOn applies a person's decision, made with a button on the message
// on, to the approval with the ID, exactly once: it records it with a
// conditional write, resumes the execution, then records the outcome. It
// returns the approval as it now stands. First, as ClickedOn does, an
// approval with no recorded message records on as its message.
//
// With a quorum above 1, an approval is the person's vote (Approval.Decide):
// until the approvals of one draft reach the quorum, DecideOn returns the
// approval still pending, with the vote in Votes, and resumes nothing; the
// vote that reaches it resumes the execution, once, whichever replica
// records it. A rejection, a change request or a skip decides at once.
// The same approval again returns the approval as it stands, unchanged.
//
// The audit events are written after the change; if that fails, the
// approval returned still holds them in AuditOutbox (OnAuditError is told)
// and Recover writes them later: the decision stands either way.
//
// Errors: ENOTFOUND, EFORBIDDEN (nothing changes), EINVALID, ECONFLICT
// (somebody decided first; the error carries the approval), EEXPIRED (the
// task had timed out or closed; the approval is now expired), ECANCELLED
// (the request was cancelled). Any other error leaves the approval
// claimed; a later call or Recover completes it.
func (s *Service) DecideOn(ctx context.Context, id string, d Decision, on MessageRef) (Approval, error) {
	a, err := s.store.Get(ctx, id)
	if err != nil {
		return Approval{}, err
	}
	if a, err = s.ClickedOn(ctx, a, on); err != nil {
		return a, err
	}
	if err := s.CanDecide(ctx, a, d.DecidedBy); err != nil {
		return a, err
	}
	now := s.Now().UTC()
	if a.Status == StatusClaimed && now.Sub(a.ClaimedAt) >= s.ClaimLease {
		claimed, err := s.store.Update(ctx, a.ID, func(x *Approval) error { return x.Reclaim(a.ClaimedAt, now) })
		if err != nil {
			return s.lost(ctx, a.ID, err)
		}
		final, err := s.resume(ctx, claimed)
		final = s.audit(ctx, final)
		if err == nil && !sameChoice(*claimed.Decision, d) {
			// The earlier decision was completed, not this one.
			return final, conflict(final)
		}
		return final, err
	}
	if err := closedError(a); err != nil {
		return a, err
	}
	if err := d.Validate(a); err != nil {
		return a, err
	}
	d.DecidedAt = now
	recorded, err := s.store.Update(ctx, a.ID, func(x *Approval) error { return x.Decide(d, now) })
	switch code := ErrorCode(err); {
	case code == EFORBIDDEN || code == EINVALID:
		return errorApproval(err, a), err
	case err != nil:
		return s.lost(ctx, a.ID, err)
	case recorded.Status == StatusPending:
		return s.audit(ctx, recorded), nil
	}
	final, err := s.resume(ctx, recorded)
	return s.audit(ctx, final), err
}

// sameChoice reports whether d is the recorded decision again (the same
// person making the same choice), as when a click is retried.
func sameChoice(recorded, d Decision) bool {
	return recorded.DecidedBy == d.DecidedBy && recorded.Action == d.Action && recorded.DraftIndex == d.DraftIndex
}

// lost turns a failed claim into the conflict the caller should see.
func (s *Service) lost(ctx context.Context, id string, err error) (Approval, error) {
	if ErrorCode(err) != ECONFLICT {
		return Approval{}, fmt.Errorf("claim approval %s: %w", id, err)
	}
	current, gerr := s.store.Get(ctx, id)
	if gerr != nil {
		return Approval{}, fmt.Errorf("read approval %s after a lost claim: %w", id, gerr)
	}
	switch current.Status {
	case StatusExpired:
		return current, expired(current)
	case StatusCancelled:
		return current, cancelled(current)
	}
	return current, conflict(current)
}

// resume sends the claimed decision to Step Functions and records the
// outcome.
func (s *Service) resume(ctx context.Context, a Approval) (Approval, error) {
	if s.resumer == nil {
		return a, fmt.Errorf("approval service has no resumer configured")
	}
	d := *a.Decision
	var err error
	if d.Succeeds() {
		var out []byte
		if out, err = d.Output(a); err == nil {
			err = s.resumer.Succeed(ctx, a, out)
		}
	} else {
		name, cause := d.Failure(a)
		err = s.resumer.Fail(ctx, a, name, cause)
	}
	status := StatusDecided
	switch {
	case err == nil && d.Action == ActionExpire:
		status = StatusExpired
	case err == nil:
	case ErrorCode(err) == EEXPIRED:
		status = StatusExpired
	default:
		return a, fmt.Errorf("resume execution of approval %s: %w", a.ID, err)
	}
	now := s.Now().UTC()
	final, ferr := s.store.Update(ctx, a.ID, func(x *Approval) error { return x.Finish(status, now) })
	if ferr != nil {
		if ErrorCode(ferr) != ECONFLICT {
			return a, fmt.Errorf("record outcome of approval %s: %w", a.ID, ferr)
		}
		// Another attempt recorded the outcome first.
		if final, ferr = s.store.Get(ctx, a.ID); ferr != nil {
			return a, fmt.Errorf("read approval %s: %w", a.ID, ferr)
		}
	}
	if final.Status == StatusExpired && d.Action != ActionExpire {
		return final, expired(final)
	}
	return final, nil
}

func conflict(a Approval) error {
	msg := "Somebody is deciding this approval right now."
	if a.Decision != nil && a.Status.Final() {
		msg = fmt.Sprintf("This approval was already decided by %s.", a.Decision.DecidedBy)
	}
	return &Error{Code: ECONFLICT, Message: msg, Approval: &a}
}

func expired(a Approval) error {
	return &Error{Code: EEXPIRED, Message: "This approval has expired: the workflow stopped waiting for it.", Approval: &a}
}

// PendingFor lists the pending approvals user may decide (CanDecide),
// oldest first, at most limit of them, as Approval.Listed; an Amended one
// is read in full to judge it, and returned in full. Approvals past their
// deadline are left out: they wait only for the sweeper to close them.
func (s *Service) PendingFor(ctx context.Context, user string, limit int) ([]Approval, error) {
	all, err := s.store.List(ctx, QueuePending, time.Time{}, listAll)
	if err != nil {
		return nil, fmt.Errorf("list pending approvals: %w", err)
	}
	slices.SortFunc(all, func(a, b Approval) int { return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID)) })
	now := s.Now()
	var mine []Approval
	for _, a := range all {
		if len(mine) == limit {
			break
		}
		if !a.Deadline.IsZero() && now.After(a.Deadline) {
			continue
		}
		if a.Amended {
			full, err := s.store.Get(ctx, a.ID)
			switch {
			case ErrorCode(err) == ENOTFOUND:
				continue
			case err != nil:
				return nil, fmt.Errorf("read approval %s: %w", a.ID, err)
			case full.Status != StatusPending:
				continue
			}
			a = full
		}
		err := s.CanDecide(ctx, a, user)
		switch {
		case err == nil:
			mine = append(mine, a)
		case ErrorCode(err) != EFORBIDDEN:
			return nil, err
		}
	}
	return mine, nil
}

// Unsynced lists up to limit final approvals whose Slack message does not
// show the outcome yet and whose update is due now, the longest due first,
// as Approval.Listed: Get each one before rendering its message. Approvals
// whose last update failed wait for their retry time (MessageFailed), so
// messages that keep failing never hold back the others.
func (s *Service) Unsynced(ctx context.Context, limit int) ([]Approval, error) {
	return s.store.List(ctx, QueueMessage, s.Now().UTC(), limit)
}

// MessageFailed records that updating the message of the approval with
// the ID failed: its next update waits MessageRetry's delay, and after
// MessageRetry.Attempts failures it is given up (MessageGaveUp; off
// QueueMessage). It returns the approval as stored; ECONFLICT when it is
// not waiting for a message update (synced, given up, or not final).
func (s *Service) MessageFailed(ctx context.Context, id string) (Approval, error) {
	now := s.Now().UTC()
	a, err := s.store.Update(ctx, id, func(a *Approval) error { return a.MessageFailed(now, s.MessageRetry) })
	if err != nil {
		return a, fmt.Errorf("record a failed message update of approval %s: %w", id, err)
	}
	return a, nil
}

// MessageSynced records that the approval's Slack message shows its final
// status, and writes its audit events still waiting, if any.
func (s *Service) MessageSynced(ctx context.Context, id string) error {
	a, err := s.store.Update(ctx, id, func(a *Approval) error { return a.MarkMessageSynced() })
	if err != nil {
		return fmt.Errorf("record the synced message of approval %s: %w", id, err)
	}
	s.audit(ctx, a)
	return nil
}
