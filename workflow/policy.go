package workflow

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Policy is how an approval is decided, as its request set it.
type Policy struct {
	// Quorum is how many distinct people must approve the same draft
	// (Quorum reads 0 as 1). A rejection, a change request or a skip by
	// any one of them decides at once.
	Quorum int
	// AllowSelfApproval lets the requester decide, and be a delegate.
	AllowSelfApproval bool
	// RequireComment lists ActionApprove and ActionReject when an
	// approval needs a comment, and a rejection a reason.
	RequireComment []Action
	// AllowDelegation lets an approver hand the request to another person.
	AllowDelegation bool
	// EscalateTo are users and user groups who may decide once the
	// escalation step is done.
	EscalateTo []string
	// OnDeadline is ActionReject or ActionSkip, decided by
	// DecidedByDeadline at the StepDeadline step; "" for none.
	OnDeadline Action
	// Heartbeat is how often the sweeper sends the task a heartbeat while
	// the approval is open; 0 for never.
	Heartbeat time.Duration
}

// Quorum is the number of approvals of one draft that decide a: its
// policy's quorum, at least 1.
func (a Approval) Quorum() int { return max(a.Policy.Quorum, 1) }

// StepKind is what a step of the deadline lifecycle does.
type StepKind string

const (
	// StepRemind reminds who may still decide.
	StepRemind StepKind = "remind"
	// StepEscalate makes Policy.EscalateTo approvers.
	StepEscalate StepKind = "escalate"
	// StepDeadline decides Policy.OnDeadline, OnDeadlineLead before the
	// deadline.
	StepDeadline StepKind = "deadline"
)

// Step is one step of an approval's deadline lifecycle, computed from its
// request when it is created. The sweeper does each once, on one replica
// (Recover).
type Step struct {
	Kind   StepKind
	At     time.Time // when it is due
	DoneAt time.Time // when it was done; zero while it is to do
}

// DecidedByDeadline is the DecidedBy of a decision taken by onDeadline.
const DecidedByDeadline = "deadline"

// Limits and defaults of the policy fields of a request.
const (
	MaxQuorum    = 10
	MaxReminders = 10
	// OnDeadlineLead is how long before the deadline onDeadline is
	// applied, so that the decision reaches the task before Step
	// Functions times it out: several sweeps of the bot (every 30 s, up
	// to 37.5 s with jitter) and a resume fit in it.
	OnDeadlineLead = 2 * time.Minute
	// MinOnDeadlineTimeout is the least timeoutSeconds of a request with
	// onDeadline.
	MinOnDeadlineTimeout = 300
	// MinHeartbeatSeconds is the least heartbeatSeconds: the bot sends
	// heartbeats from its sweep, which runs every 30 s by default.
	MinHeartbeatSeconds = 60
	// MaxDelegations bounds the delegations of one request.
	MaxDelegations = 10
)

// DefaultReminders are the reminders of a request with a deadline that
// does not set reminders; DefaultEscalateAfter is the escalateAfter of a
// request with escalateTo that does not set it.
var (
	DefaultReminders     = []string{"50%", "90%"}
	DefaultEscalateAfter = "75%"
)

// offset is a point in an approval's time: a duration after the request,
// or a share (in hundredths of a percent) of the time from the request to
// the deadline.
type offset struct {
	after       time.Duration
	basisPoints int64 // 1..9999; 0 for a duration
}

// parseOffset reads "2h" (a Go duration after the request) or "50%" (a
// share of the time until the deadline, at most two decimals). The error
// is the sentence after the value in a message naming the field.
func parseOffset(s string) (offset, error) {
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		whole, frac, dotted := strings.Cut(pct, ".")
		var bp int64
		if isDigits(whole, 2) && (!dotted || isDigits(frac, 2)) {
			w, _ := strconv.ParseInt(whole, 10, 64)
			f, _ := strconv.ParseInt((frac + "00")[:2], 10, 64)
			bp = w*100 + f
		}
		if bp <= 0 || bp >= 10000 {
			return offset{}, fmt.Errorf("is not a percentage above 0%% and below 100%% with at most two decimals, such as 50%%")
		}
		return offset{basisPoints: bp}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return offset{}, fmt.Errorf("is neither a duration after the request such as 2h or 90m nor a percentage of the time until the deadline such as 50%%")
	}
	return offset{after: d}, nil
}

// at is when o falls for a request created at created with the deadline
// (which a share needs).
func (o offset) at(created, deadline time.Time) time.Time {
	if o.basisPoints > 0 {
		return created.Add(time.Duration(int64(deadline.Sub(created)) / 10000 * o.basisPoints))
	}
	return created.Add(o.after)
}

// validatePolicy checks the policy fields. Messages name the field and
// quote at most a short value.
func (r Request) validatePolicy() error {
	if r.Quorum != nil && (*r.Quorum < 1 || *r.Quorum > MaxQuorum) {
		return Errorf(EINVALID, "quorum must be a whole number from 1 to %d", MaxQuorum)
	}
	seen := map[string]bool{}
	for _, c := range r.RequireComment {
		switch {
		case c != "approve" && c != "reject":
			return Errorf(EINVALID, "requireComment holds %s; it may hold only \"approve\" and \"reject\"", quoteValue(c))
		case seen[c]:
			return Errorf(EINVALID, "requireComment repeats %q", c)
		}
		seen[c] = true
	}
	if err := r.validateEscalation(); err != nil {
		return err
	}
	if err := r.validateReminders(); err != nil {
		return err
	}
	switch r.OnDeadline {
	case "":
	case "reject":
	case "skip":
		if !r.AllowSkip {
			return Errorf(EINVALID, "onDeadline \"skip\" needs allowSkip true: a request nobody may skip cannot be skipped at its deadline either")
		}
	default:
		return Errorf(EINVALID, "onDeadline must be \"reject\" or \"skip\", not %s", quoteValue(r.OnDeadline))
	}
	if r.OnDeadline != "" && r.TimeoutSeconds < MinOnDeadlineTimeout {
		return Errorf(EINVALID, "onDeadline needs timeoutSeconds of at least %d: the bot applies it %s before the deadline", MinOnDeadlineTimeout, OnDeadlineLead)
	}
	if h := r.HeartbeatSeconds; h != nil {
		switch {
		case *h < MinHeartbeatSeconds:
			return Errorf(EINVALID, "heartbeatSeconds must be at least %d: the bot sends heartbeats from its sweep, every 30 s by default", MinHeartbeatSeconds)
		case r.TimeoutSeconds > 0 && *h >= r.TimeoutSeconds:
			return Errorf(EINVALID, "heartbeatSeconds must be less than timeoutSeconds")
		case *h > MaxTimeoutSeconds:
			return Errorf(EINVALID, "heartbeatSeconds must be at most %d", MaxTimeoutSeconds)
		}
	}
	return r.validateQuorumReachable()
}

func (r Request) validateEscalation() error {
	if len(r.EscalateTo) > MaxApprovers {
		return Errorf(EINVALID, "escalateTo has %d entries; at most %d are allowed", len(r.EscalateTo), MaxApprovers)
	}
	for _, e := range r.EscalateTo {
		if unresolved(e) {
			return unresolvedError("escalateTo", e)
		}
		if !IsUserID(e) && !IsGroupID(e) {
			return Errorf(EINVALID, "escalateTo entry %s is neither a user ID (U…/W…) nor a user-group ID (S…)", quoteValue(e))
		}
	}
	switch {
	case r.EscalateAfter != "" && len(r.EscalateTo) == 0:
		return Errorf(EINVALID, "escalateAfter needs escalateTo: whom to escalate to")
	case len(r.EscalateTo) == 0:
		return nil
	case unresolved(r.EscalateAfter):
		return unresolvedError("escalateAfter", r.EscalateAfter)
	}
	after := cmp.Or(r.EscalateAfter, DefaultEscalateAfter)
	o, err := parseOffset(after)
	if err != nil {
		return Errorf(EINVALID, "escalateAfter %s %v", quoteValue(after), err)
	}
	return r.checkBeforeDeadline("escalateAfter", after, o)
}

func (r Request) validateReminders() error {
	if len(r.Reminders) > MaxReminders {
		return Errorf(EINVALID, "reminders has %d entries; at most %d are allowed", len(r.Reminders), MaxReminders)
	}
	seen := map[string]bool{}
	for _, s := range r.Reminders {
		if unresolved(s) {
			return unresolvedError("reminders", s)
		}
		o, err := parseOffset(s)
		if err != nil {
			return Errorf(EINVALID, "reminders entry %s %v", quoteValue(s), err)
		}
		if seen[s] {
			return Errorf(EINVALID, "reminders repeats %s", quoteValue(s))
		}
		seen[s] = true
		if err := r.checkBeforeDeadline("reminders entry", s, o); err != nil {
			return err
		}
	}
	return nil
}

// checkBeforeDeadline refuses a share without a deadline, and a duration
// that does not fall before it.
func (r Request) checkBeforeDeadline(field, value string, o offset) error {
	switch {
	case o.basisPoints > 0 && r.TimeoutSeconds == 0:
		return Errorf(EINVALID, "%s %s is a share of the time until the deadline, but the request has none: set timeoutSeconds, or give a duration such as 2h", field, quoteValue(value))
	case o.basisPoints == 0 && r.TimeoutSeconds > 0 && o.after >= time.Duration(r.TimeoutSeconds)*time.Second:
		return Errorf(EINVALID, "%s %s does not fall before the deadline (timeoutSeconds %d)", field, quoteValue(value), r.TimeoutSeconds)
	}
	return nil
}

// validateQuorumReachable refuses a quorum more people than may ever
// decide, when every approver is a user (a group's size is not known
// here). Delegation moves the right to decide; it never adds a person.
func (r Request) validateQuorumReachable() error {
	if r.Quorum == nil || *r.Quorum == 1 {
		return nil
	}
	people := map[string]bool{}
	for _, id := range append(slices.Clone(r.Approvers), r.EscalateTo...) {
		if IsGroupID(id) {
			return nil
		}
		if id != r.RequestedBy || r.AllowSelfApproval {
			people[id] = true
		}
	}
	if int64(len(people)) < *r.Quorum {
		return Errorf(EINVALID, "quorum %d needs at least %d people who may approve, but approvers and escalateTo name %d (the requester does not count without allowSelfApproval)", *r.Quorum, *r.Quorum, len(people))
	}
	return nil
}

// policy is the Policy r asks for, defaults applied.
func (r Request) policy() Policy {
	p := Policy{
		Quorum:            1,
		AllowSelfApproval: r.AllowSelfApproval,
		AllowDelegation:   r.AllowDelegation == nil || *r.AllowDelegation,
		EscalateTo:        unique(r.EscalateTo),
	}
	if r.Quorum != nil {
		p.Quorum = int(*r.Quorum)
	}
	for _, c := range r.RequireComment {
		p.RequireComment = append(p.RequireComment, map[string]Action{"approve": ActionApprove, "reject": ActionReject}[c])
	}
	if len(p.EscalateTo) == 0 {
		p.EscalateTo = nil
	}
	switch r.OnDeadline {
	case "reject":
		p.OnDeadline = ActionReject
	case "skip":
		p.OnDeadline = ActionSkip
	}
	if r.HeartbeatSeconds != nil {
		p.Heartbeat = time.Duration(*r.HeartbeatSeconds) * time.Second
	}
	return p
}

// steps is the deadline lifecycle of a validated request created at
// created with the deadline (zero for none), in time order: reminders
// (by default DefaultReminders when there is a deadline), the escalation
// and the onDeadline decision. Reminders falling at the same time are one;
// steps falling at or after the onDeadline decision are left out.
func (r Request) steps(created, deadline time.Time) []Step {
	reminders := r.Reminders
	if reminders == nil && !deadline.IsZero() {
		reminders = DefaultReminders
	}
	var steps []Step
	for _, s := range reminders {
		o, _ := parseOffset(s) // validated
		at := o.at(created, deadline)
		if !slices.ContainsFunc(steps, func(x Step) bool { return x.At.Equal(at) }) {
			steps = append(steps, Step{Kind: StepRemind, At: at})
		}
	}
	if len(r.EscalateTo) > 0 {
		o, _ := parseOffset(cmp.Or(r.EscalateAfter, DefaultEscalateAfter))
		steps = append(steps, Step{Kind: StepEscalate, At: o.at(created, deadline)})
	}
	if r.OnDeadline != "" {
		end := deadline.Add(-OnDeadlineLead)
		steps = slices.DeleteFunc(steps, func(x Step) bool { return !x.At.Before(end) })
		steps = append(steps, Step{Kind: StepDeadline, At: end})
	}
	slices.SortStableFunc(steps, func(a, b Step) int { return a.At.Compare(b.At) })
	return steps
}
