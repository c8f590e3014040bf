package workflow

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
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
	// List returns up to limit approvals on the queue after the cursor
	// after ("": from the start) whose QueuedAt is not after until (zero:
	// any), by QueuedAt, each as Approval.Listed: without the task token or
	// the message body; and the cursor of the next page, "" when nothing
	// follows. The list is eventually consistent; act on it with Update,
	// and Get an approval before rendering or resuming it.
	List(ctx context.Context, q Queue, after Cursor, until time.Time, limit int) ([]Approval, Cursor, error)
	// ListOpen returns up to limit open (pending or claimed) approvals of
	// the execution, oldest first, as Approval.Listed, from an index that
	// holds only open approvals (no scan). It is eventually consistent, like
	// List.
	ListOpen(ctx context.Context, executionARN string, limit int) ([]Approval, error)
	// ListFor returns up to limit pending approvals whose Deciders hold one
	// of deciders (user and user-group IDs), whole and read consistently,
	// oldest first (by CreatedAt, then ID). It reads an index keyed by
	// who may decide, so its cost grows with their approvals, not with
	// everybody's; the index is eventually consistent (an approval may
	// show up shortly after it became theirs).
	ListFor(ctx context.Context, deciders []string, limit int) ([]Approval, error)
	// ListRequestedBy returns up to limit pending approvals requester asked
	// for (RequestedBy), whole and read consistently, oldest first, from
	// the same kind of index as ListFor: its cost grows with the
	// requester's open requests, not with everybody's.
	ListRequestedBy(ctx context.Context, requester string, limit int) ([]Approval, error)
	// DeciderGroups returns the user groups that may decide an approval
	// that can still be open at now (among others, groups whose approvals
	// were all decided since: checking them finds nothing).
	DeciderGroups(ctx context.Context, now time.Time) ([]string, error)

	// OpenCounts returns how many approvals are open (pending or claimed)
	// in each age bucket they were last written in: under AgeBounds[0],
	// under AgeBounds[1], …, older (len(AgeBounds)+1 counts), without
	// reading the approvals.
	OpenCounts(ctx context.Context) ([]int, error)

	// ScheduleCheck schedules a check of the execution (ExecutionChecks)
	// for at, unless one is scheduled later already.
	ScheduleCheck(ctx context.Context, executionARN string, at time.Time) error
	// ChecksDue returns up to limit checks due at now, the longest due
	// first, and when the first check not returned is due (zero: none is
	// scheduled).
	ChecksDue(ctx context.Context, now time.Time, limit int) (due []ScheduledCheck, next time.Time, err error)
	// ForgetCheck removes the execution's check if it is still scheduled
	// for at; a check scheduled for another time stays.
	ForgetCheck(ctx context.Context, executionARN string, at time.Time) error

	// Watch records that user watches their list of work until until (a
	// later record replaces an earlier one).
	Watch(ctx context.Context, user string, until time.Time) error
	// Watchers returns the users who watch their list of work at now.
	Watchers(ctx context.Context, now time.Time) ([]string, error)
}

// AuditingStore is a Store that writes the audit events a change records
// (AuditOutbox) to the audit trail itself, in the same atomic write as the
// change or, where a Store keeps them in the record for a while (the
// events of a decision until its message is updated), with a later write
// of the approval: the Service never writes them (AuditLog.Append), and no
// approval waits on QueueAudit, so Recover does not read it.
type AuditingStore interface {
	Store
	// WritesAuditEvents marks the Store as one.
	WritesAuditEvents()
}

// Cursor is where a Store's listing stopped, for the next page: opaque to
// the caller.
type Cursor string

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
	// another attempt may take it over; at least MinClaimLease (a shorter
	// one counts as MinClaimLease).
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
	checks          *checkCache
}

// Defaults for a Service.
const (
	DefaultClaimLease = 60 * time.Second
	// MinClaimLease is the shortest ClaimLease: a claim is listed as due
	// (QueueOpen) from then on.
	MinClaimLease      = 10 * time.Second
	DefaultRetention   = 90 * 24 * time.Hour
	DefaultExpiryGrace = time.Minute
	// DefaultRecoverBudget covers a take-over, a resume (whose history
	// check may read several pages) and the record of the outcome.
	DefaultRecoverBudget = 30 * time.Second
	// executionMaxAge is Step Functions' one-year limit: without a timeout
	// a task waits at most that long.
	executionMaxAge = 365 * 24 * time.Hour
	// listAll reads every open approval of an execution (the store pages
	// through them): CloseExecution closes them all.
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
		checks:          &checkCache{},
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
	// The execution's check is scheduled at once, beside the write.
	scheduled := make(chan error, 1)
	go func(a Approval) { scheduled <- s.scheduleFirstCheck(ctx, a) }(a)
	a, created, err = s.store.Create(ctx, a)
	if serr := <-scheduled; err == nil && serr != nil {
		err = serr
	}
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
// with code EFORBIDDEN explains why. A group whose members cannot be
// looked up is skipped: a member of another group may still decide; when
// no group says yes, the failed lookups are returned, joined. A listed
// approval that is Amended must be read in full first.
func (s *Service) CanDecide(ctx context.Context, a Approval, user string) error {
	ok, groups, err := a.decidableBy(user)
	if ok || err != nil {
		return err
	}
	var failed []error
	for _, group := range groups {
		if s.directory == nil {
			break
		}
		members, err := s.directory.GroupMembers(ctx, group)
		if err != nil {
			failed = append(failed, fmt.Errorf("look up members of user group %s: %w", group, err))
			continue
		}
		if slices.Contains(members, user) {
			return nil
		}
	}
	if len(failed) > 0 {
		return errors.Join(failed...)
	}
	return notApprover()
}

func notApprover() error {
	return refusal(EFORBIDDEN, WhyNotApprover, nil, "You are not one of the approvers of this request.")
}

// decidableBy reports whether user may decide a as a person (an approver,
// a delegate, once escalated one of EscalateTo), and otherwise which user
// groups may decide it, whose members may too; err is the EFORBIDDEN
// error of the unknown user, the requester (without AllowSelfApproval)
// and somebody who handed it on, who may not even through a group.
func (a Approval) decidableBy(user string) (ok bool, groups []string, err error) {
	if user == "" {
		return false, nil, refusal(EFORBIDDEN, WhyUnknownUser, nil, "Only a known Slack user can decide an approval.")
	}
	if user == a.RequestedBy && !a.Policy.AllowSelfApproval {
		return false, nil, refusal(EFORBIDDEN, WhyRequester, nil, "You requested this approval, so somebody else has to decide it.")
	}
	if to, handed := a.HandedTo(user); handed {
		return false, nil, handedOff(a, to)
	}
	eligible := slices.Clone(a.Approvers)
	if a.Escalated() {
		eligible = append(eligible, a.Policy.EscalateTo...)
	}
	if a.isDelegate(user) || slices.Contains(eligible, user) {
		return true, nil, nil
	}
	return false, slices.DeleteFunc(eligible, func(id string) bool { return !IsGroupID(id) }), nil
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
	c, err := s.Claim(ctx, id, d, on)
	if err != nil {
		return c.Approval, err
	}
	return s.Resume(ctx, c)
}

// Claimed is a decision that Claim recorded: DecideOn's first half. Once
// Claim has returned, the decision no longer depends on its caller: if
// Resume is never called (the process dies), Recover resumes the
// execution once the claim's lease has passed.
type Claimed struct {
	// Approval is the approval as the claim left it.
	Approval Approval
	resume   func(context.Context) (Approval, error)
}

// Pending reports whether Resume has work to do: false for a vote below
// the quorum, which resumes nothing.
func (c Claimed) Pending() bool { return c.resume != nil }

// Resume sends the decision c holds to Step Functions and records the
// outcome, as DecideOn does after its claim, and returns the approval as
// it then stands; with nothing pending it returns c.Approval.
func (s *Service) Resume(ctx context.Context, c Claimed) (Approval, error) {
	if c.resume == nil {
		return c.Approval, nil
	}
	return c.resume(ctx)
}

// Claim is DecideOn up to its conditional write: it checks the decision,
// records it durably (the approval claimed, or a vote counted below the
// quorum) and returns without resuming anything; Resume does the rest.
// The errors are DecideOn's; with one, nothing was recorded
// (Claimed.Approval is the approval as DecideOn returns it alongside the
// error).
func (s *Service) Claim(ctx context.Context, id string, d Decision, on MessageRef) (Claimed, error) {
	a, err := s.store.Get(ctx, id)
	if err != nil {
		return Claimed{}, err
	}
	if a, err = s.ClickedOn(ctx, a, on); err != nil {
		return Claimed{Approval: a}, err
	}
	if err := s.CanDecide(ctx, a, d.DecidedBy); err != nil {
		return Claimed{Approval: a}, err
	}
	now := s.Now().UTC()
	if a.Status == StatusClaimed && now.Sub(a.ClaimedAt) >= s.claimLease() {
		claimed, err := s.store.Update(ctx, a.ID, func(x *Approval) error { return x.Reclaim(a.ClaimedAt, now) })
		if err != nil {
			return s.lostClaim(ctx, a.ID, err)
		}
		return Claimed{Approval: claimed, resume: func(ctx context.Context) (Approval, error) {
			final, err := s.resume(ctx, claimed)
			final = s.audit(ctx, final)
			if err == nil && !sameChoice(*claimed.Decision, d) {
				// The earlier decision was completed, not this one.
				return final, conflict(final)
			}
			return final, err
		}}, nil
	}
	if err := closedError(a); err != nil {
		return Claimed{Approval: a}, err
	}
	if err := d.Validate(a); err != nil {
		return Claimed{Approval: a}, err
	}
	d.DecidedAt = now
	recorded, err := s.store.Update(ctx, a.ID, func(x *Approval) error { return x.Decide(d, now) })
	switch code := ErrorCode(err); {
	case code == EFORBIDDEN || code == EINVALID:
		return Claimed{Approval: errorApproval(err, a)}, err
	case err != nil:
		return s.lostClaim(ctx, a.ID, err)
	case recorded.Status == StatusPending:
		return Claimed{Approval: s.audit(ctx, recorded)}, nil
	}
	return s.claimed(recorded), nil
}

// claimed is the Claimed of an approval whose claim was recorded.
func (s *Service) claimed(recorded Approval) Claimed {
	return Claimed{Approval: recorded, resume: func(ctx context.Context) (Approval, error) {
		final, err := s.resume(ctx, recorded)
		return s.audit(ctx, final), err
	}}
}

// lostClaim is lost for Claim.
func (s *Service) lostClaim(ctx context.Context, id string, err error) (Claimed, error) {
	a, err := s.lost(ctx, id, err)
	return Claimed{Approval: a}, err
}

// claimLease is ClaimLease, at least MinClaimLease.
func (s *Service) claimLease() time.Duration { return max(s.ClaimLease, MinClaimLease) }

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
// oldest first, at most limit of them, whole. Approvals past their
// deadline are left out: they wait only for the sweeper to close them.
//
// It reads only user's own work: the approvals user may decide as a
// person, and those of the user groups (among DeciderGroups) user is in
// (Store.ListFor). A group whose members cannot be looked up hides only
// its own approvals: they are left out, and the list comes back with an
// *UncheckedError naming the groups, so the answer can say some could not
// be checked. Any other error returns no list.
func (s *Service) PendingFor(ctx context.Context, user string, limit int) ([]Approval, error) {
	if !IsUserID(user) || limit < 1 {
		return nil, nil
	}
	now := s.Now()
	groups, err := s.store.DeciderGroups(ctx, now.UTC())
	if err != nil {
		return nil, fmt.Errorf("list the user groups that may decide: %w", err)
	}
	member, unchecked := s.memberships(ctx, user, groups)
	list, err := s.store.ListFor(ctx, append([]string{user}, member...), limit)
	if err != nil {
		return nil, fmt.Errorf("list the approvals %s may decide: %w", user, err)
	}
	mine := list[:0]
	for _, a := range list {
		if !a.Deadline.IsZero() && now.After(a.Deadline) {
			continue
		}
		ok, eligible, err := a.decidableBy(user)
		if ok || (err == nil && slices.ContainsFunc(eligible, func(g string) bool { return slices.Contains(member, g) })) {
			mine = append(mine, a)
		}
	}
	if unchecked != nil {
		return mine, unchecked
	}
	return mine, nil
}

// UncheckedError is PendingFor's error when the members of some user
// groups could not be looked up: the approvals only those groups may
// decide are left out of the list it comes with. Err holds the lookups'
// errors, joined.
type UncheckedError struct {
	Groups []string
	Err    error
}

func (e *UncheckedError) Error() string {
	return fmt.Sprintf("the members of %d user groups could not be looked up: %v", len(e.Groups), e.Err)
}

func (e *UncheckedError) Unwrap() error { return e.Err }

// memberships looks up, at once, which of the groups user is in. The
// groups whose lookup failed come back in an *UncheckedError (nil when
// none did).
func (s *Service) memberships(ctx context.Context, user string, groups []string) (member []string, unchecked *UncheckedError) {
	if s.directory == nil || len(groups) == 0 {
		return nil, nil
	}
	type answer struct {
		in  bool
		err error
	}
	answers := make([]answer, len(groups))
	var wg sync.WaitGroup
	for i, g := range groups {
		wg.Go(func() {
			members, err := s.directory.GroupMembers(ctx, g)
			answers[i] = answer{in: slices.Contains(members, user), err: err}
		})
	}
	wg.Wait()
	var errs []error
	for i, g := range groups {
		switch a := answers[i]; {
		case a.err != nil:
			if unchecked == nil {
				unchecked = &UncheckedError{}
			}
			unchecked.Groups = append(unchecked.Groups, g)
			errs = append(errs, fmt.Errorf("look up members of user group %s: %w", g, a.err))
		case a.in:
			member = append(member, g)
		}
	}
	if unchecked != nil {
		unchecked.Err = errors.Join(errs...)
	}
	return member, unchecked
}

// Unsynced lists up to limit final approvals whose Slack message does not
// show the outcome yet and whose update is due now, the longest due first,
// as Approval.Listed: Get each one before rendering its message. Approvals
// whose last update failed wait for their retry time (MessageFailed), so
// messages that keep failing never hold back the others.
func (s *Service) Unsynced(ctx context.Context, limit int) ([]Approval, error) {
	list, _, err := s.store.List(ctx, QueueMessage, "", s.Now().UTC(), limit)
	return list, err
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
