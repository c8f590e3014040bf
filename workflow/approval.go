// Package workflow is the domain of human approvals for AWS Step Functions:
// the approval request a paused execution sends, the stored approval, the
// decision a person makes, and the service that requests and decides
// approvals exactly once. It imports only the standard library; adapters
// (DynamoDB, Step Functions, Slack) implement the small interfaces declared
// in service.go.
package workflow

import (
	"slices"
	"time"
)

// Status is where an approval is in its life.
type Status string

const (
	// StatusPending waits for a person to decide.
	StatusPending Status = "pending"
	// StatusClaimed holds a recorded decision whose resume is not yet
	// confirmed. A claim older than the service's lease may be taken over,
	// which is how a crash between claim and resume heals.
	StatusClaimed Status = "claimed"
	// StatusDecided means the execution was resumed with the decision.
	StatusDecided Status = "decided"
	// StatusExpired means the task timed out or was closed before a
	// decision could resume it.
	StatusExpired Status = "expired"
	// StatusCancelled means the request was closed without a decision for
	// the reason its Cancellation gives, such as a newer request replacing
	// it. Its task no longer waits for it.
	StatusCancelled Status = "cancelled"
)

// Final reports whether nothing more can happen to the approval.
func (s Status) Final() bool {
	return s == StatusDecided || s == StatusExpired || s == StatusCancelled
}

// Queue names the work lists a Store keeps indexed, so that nothing is
// found by scanning.
type Queue string

const (
	// QueueOpen lists the open approvals by when the sweeper next has work
	// on them: a pending approval by its Due time, a claimed one (whose
	// resume is not yet confirmed) by when its claim may first be taken
	// over (ClaimedAt plus MinClaimLease; a Service with a longer lease
	// passes over it until its own lease ends). So one read of what is due
	// finds both.
	QueueOpen Queue = "pending"
	// QueueMessage lists final approvals whose Slack message does not yet
	// show the outcome, by when their next update is due.
	QueueMessage Queue = "message"
	// QueueAudit lists final approvals whose message needs nothing more
	// but whose audit events are not all written (AuditOutbox), by when
	// their write is due: when they closed, or the retry time after a
	// failed write (AuditRetryAt).
	QueueAudit Queue = "audit"
)

// NeverDue is the Due of a pending approval the sweeper has nothing to
// do for: no deadline, no step, no heartbeat.
var NeverDue = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// Approval is one stored request for a human decision, keyed by a short
// unguessable ID. It is the record of who decided what, when and why.
type Approval struct {
	ID string
	// TaskToken resumes the execution. It is kept only while the approval
	// is open: a final approval has none (see Close).
	TaskToken    TaskToken
	ExecutionARN string
	StateName    string

	// Channel is the channel the request was posted in; until it is
	// posted, the channel or user (a direct message) it is for.
	Channel     string
	ThreadTS    string // thread the request lives in, if any
	MessageTS   string // ts of the request message, once posted
	Approvers   []string
	RequestedBy string

	Title           string
	Summary         string
	Fields          []Field
	Drafts          []string
	RevisionPresets []string
	AllowSkip       bool
	// AllowEdit lets an approver edit the draft they approve (Decision.Edited).
	AllowEdit bool
	// NotifyRequester: RequestedBy gets a direct message once the request
	// is decided, expired or cancelled.
	NotifyRequester bool
	// Confirm lists the actions (Confirmable) whose buttons ask "are you
	// sure?" first.
	Confirm []string
	// Locale is the language people read the request in (Locales; ""
	// reads as LocaleEnglish).
	Locale string
	// RequesterToldAt is when the requester's notice was claimed (zero
	// until then; see Service.ClaimRequesterNotice).
	RequesterToldAt time.Time

	CreatedAt time.Time
	Deadline  time.Time // zero when the task has no timeout
	PurgeAt   time.Time // when the record may be deleted (DynamoDB TTL)

	Status    Status
	Decision  *Decision // set once claimed
	ClaimedAt time.Time // when the current claim was taken
	Attempts  int       // claims taken, including takeovers
	ClosedAt  time.Time // when the status became final

	// Cancellation says why a cancelled approval was closed.
	Cancellation *Cancellation

	// Policy is how the approval is decided, and Steps the reminders,
	// escalation and onDeadline decision of its deadline lifecycle, in
	// time order.
	Policy Policy
	Steps  []Step
	// Votes are the approvals counted towards the quorum, one per person,
	// in the order they came.
	Votes []Vote
	// Delegations are the hand-overs of the request, oldest first.
	Delegations []Delegation
	// HeartbeatAt is when the next heartbeat is due (Policy.Heartbeat).
	HeartbeatAt time.Time
	// AgeBucket is how many AgeBounds the approval's age had passed when
	// it was last written: the bucket Store.OpenCounts counts it in while
	// it is open. The sweeper moves a pending approval on as it ages.
	AgeBucket int

	// AuditSeq counts the approval's audit events; AuditOutbox holds those
	// not yet written to the AuditLog. Every change records its events in
	// the same write, so none is lost: a Store that keeps the audit trail
	// writes them with it (and returns none here); otherwise they are
	// written out after it. AuditAttempts counts the failed writes of a
	// final approval's events left here; the next is not due before
	// AuditRetryAt.
	AuditSeq      int
	AuditOutbox   []AuditEvent
	AuditAttempts int
	AuditRetryAt  time.Time

	// Amended is set on a listed approval (Store.List, Store.ListOpen)
	// whose record says more about who may decide than the listing holds:
	// a delegation, an escalation, a vote, or self-approval allowed. Get
	// it before judging who may decide it.
	Amended bool

	// MessageSynced is true when the Slack message shows the final status.
	MessageSynced bool
	// MessageAttempts counts failed updates of the message; the next is not
	// due before MessageRetryAt. MessageGaveUp is set when they ran out:
	// the approval leaves QueueMessage with its message not synced.
	MessageAttempts int
	MessageRetryAt  time.Time
	MessageGaveUp   bool
}

// MessageRetry is how failed updates of an approval's message are retried:
// the n-th failure waits Base·2^(n-1), at most Max, and the Attempts-th
// gives up.
type MessageRetry struct {
	Base, Max time.Duration
	Attempts  int
}

// DefaultMessageRetry retries for about four hours.
var DefaultMessageRetry = MessageRetry{Base: time.Minute, Max: time.Hour, Attempts: 10}

// Delay is how long the n-th failure waits before the next try.
func (p MessageRetry) Delay(n int) time.Duration {
	d := p.Base << min(max(n-1, 0), 30)
	if d <= 0 || d > p.Max {
		d = p.Max
	}
	return d
}

// QueuedAt orders an approval on its queue: on QueueOpen, when the
// sweeper next has work on it (Due, or the end of a claim's lease); on
// QueueMessage, when its next update is due (when it closed, or the retry
// time after a failed update); on QueueAudit, when its write is due (when
// it closed, or the retry time after a failed write).
func (a Approval) QueuedAt() time.Time {
	switch q := a.Queue(); {
	case q == QueueOpen && a.Status == StatusClaimed:
		return a.ClaimedAt.Add(MinClaimLease)
	case q == QueueOpen:
		return a.Due()
	case q == QueueMessage && !a.MessageRetryAt.IsZero():
		return a.MessageRetryAt
	case q == QueueAudit && !a.AuditRetryAt.IsZero():
		return a.AuditRetryAt
	case (q == QueueMessage || q == QueueAudit) && !a.ClosedAt.IsZero():
		return a.ClosedAt
	}
	return a.CreatedAt
}

// Due is when the sweeper next has work on the pending approval a: its
// next step or heartbeat, or its deadline (to expire it); NeverDue when
// none. Audit events left in its record do not make it due: they are
// written with its next change, and those of a final approval on
// QueueAudit, so an approval whose events cannot be written never holds
// up the deadline work of others.
func (a Approval) Due() time.Time {
	due := NeverDue
	earlier := func(t time.Time) {
		if !t.IsZero() && t.Before(due) {
			due = t
		}
	}
	if i := slices.IndexFunc(a.Steps, func(s Step) bool { return s.DoneAt.IsZero() }); i >= 0 {
		earlier(a.Steps[i].At)
	}
	if a.Policy.Heartbeat > 0 {
		earlier(a.HeartbeatAt)
	}
	earlier(a.Deadline)
	for _, d := range a.Delegations {
		if d.Told.IsZero() {
			earlier(d.At.Add(HandOverNoticeGrace))
		}
	}
	if a.AgeBucket < len(AgeBounds) {
		earlier(a.CreatedAt.Add(AgeBounds[a.AgeBucket]))
	}
	return due
}

// AgeBounds are the ages at which an open approval moves to the next
// bucket of the open approvals' count (Store.OpenCounts): under an hour,
// under a day, under a week, older.
var AgeBounds = [...]time.Duration{time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}

// ageBucket is how many AgeBounds age has passed.
func ageBucket(age time.Duration) int {
	n := 0
	for n < len(AgeBounds) && age >= AgeBounds[n] {
		n++
	}
	return n
}

// Clone returns a deep copy of a: changing the copy's lists never
// changes a.
func (a Approval) Clone() Approval {
	a.Approvers = slices.Clone(a.Approvers)
	a.Fields = slices.Clone(a.Fields)
	a.Drafts = slices.Clone(a.Drafts)
	a.RevisionPresets = slices.Clone(a.RevisionPresets)
	a.Confirm = slices.Clone(a.Confirm)
	a.Policy.RequireComment = slices.Clone(a.Policy.RequireComment)
	a.Policy.EscalateTo = slices.Clone(a.Policy.EscalateTo)
	a.Steps = slices.Clone(a.Steps)
	a.Votes = slices.Clone(a.Votes)
	a.Delegations = slices.Clone(a.Delegations)
	a.AuditOutbox = slices.Clone(a.AuditOutbox)
	for i, e := range a.AuditOutbox {
		a.AuditOutbox[i] = e.Clone()
	}
	if a.Decision != nil {
		d := *a.Decision
		a.Decision = &d
	}
	if a.Cancellation != nil {
		c := *a.Cancellation
		a.Cancellation = &c
	}
	return a
}

// Cancellation is why an approval was closed without a decision.
type Cancellation struct {
	// Reason is what happened, in words people read after "Cancelled: ",
	// such as ReasonReplaced.
	Reason string
	// ReplacedBy is the ID of the newer approval that replaced this one.
	ReplacedBy string
	// Link is the permalink of the newer request's message, if known.
	Link string
	// StoppedAt is when the execution stopped, for a request closed
	// because its execution ended (Ended); zero otherwise.
	StoppedAt time.Time
}

// ReasonReplaced is the reason of a request replaced by a newer one.
const ReasonReplaced = "replaced by a newer request"

// Replaced is the cancellation of a request that newer replaces; link is
// the permalink of newer's message, or "".
func Replaced(newer Approval, link string) Cancellation {
	return Cancellation{Reason: ReasonReplaced, ReplacedBy: newer.ID, Link: link}
}

// MessageRef is where a request message is in Slack: its channel and ts.
type MessageRef struct {
	Channel, TS string
}

// Close moves a to the final status at now and forgets the task token,
// which nothing may use once the approval is final. Stores call it on
// every move to a final status, so no final record holds a token.
func (a *Approval) Close(status Status, now time.Time) {
	a.Status = status
	a.ClosedAt = now
	a.TaskToken = ""
}

// Listed is the part of a that Store.List returns: what the work lists
// read (the queue an approval is on, its approvers and requester, its
// title, where its message is, its deadline and outcome), and Amended. It
// never holds the task token, the summary, the fields, the drafts, the
// revision presets, the policy, steps, votes, delegations or audit events:
// whoever needs those (to resume, to render the message, to judge who may
// decide an Amended approval) reads the approval with Store.Get.
func (a Approval) Listed() Approval {
	return Approval{
		ID:            a.ID,
		ExecutionARN:  a.ExecutionARN,
		StateName:     a.StateName,
		Channel:       a.Channel,
		ThreadTS:      a.ThreadTS,
		MessageTS:     a.MessageTS,
		Approvers:     a.Approvers,
		RequestedBy:   a.RequestedBy,
		Title:         a.Title,
		CreatedAt:     a.CreatedAt,
		Deadline:      a.Deadline,
		Status:        a.Status,
		Decision:      a.Decision,
		ClaimedAt:     a.ClaimedAt,
		ClosedAt:      a.ClosedAt,
		MessageSynced: a.MessageSynced,
		Amended:       a.amended(),
	}
}

// amended reports whether who may decide a depends on more than its
// approvers and requester (see Approval.Amended).
func (a Approval) amended() bool {
	return a.Amended || len(a.Delegations) > 0 || len(a.Votes) > 0 || a.Policy.AllowSelfApproval || a.Escalated()
}

// Queue reports the work list the approval belongs to, or "" if none.
func (a Approval) Queue() Queue {
	switch {
	case a.Status == StatusPending, a.Status == StatusClaimed:
		return QueueOpen
	case a.Status.Final() && !a.MessageSynced && !a.MessageGaveUp && a.MessageTS != "":
		return QueueMessage
	case a.Status.Final() && len(a.AuditOutbox) > 0:
		return QueueAudit
	}
	return ""
}

// ThreadRoot is the ts of the thread that holds the request and its
// decision reply: the requested thread, or the request message itself.
func (a Approval) ThreadRoot() string {
	if a.ThreadTS != "" {
		return a.ThreadTS
	}
	return a.MessageTS
}

// Field is a label/value pair shown with a request, in the order given.
type Field struct {
	Label string
	Value string
}

// TaskToken is a Step Functions task token. It is a secret: it formats and
// marshals as a redaction so it cannot leak into logs, messages or errors
// by accident. Reveal returns the real value for the store and resumer.
type TaskToken string

const redacted = "[redacted]"

// Reveal returns the token itself. Only the store and the resumer call it.
func (t TaskToken) Reveal() string { return string(t) }

// String redacts the token.
func (t TaskToken) String() string { return redacted }

// GoString redacts the token for %#v.
func (t TaskToken) GoString() string { return redacted }

// MarshalJSON redacts the token.
func (t TaskToken) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText redacts the token.
func (t TaskToken) MarshalText() ([]byte, error) { return []byte(redacted), nil }
