package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

// Findings are what a run found wrong; every count must be zero.
type Findings struct {
	// Lost: executions still waiting once everything settled, neither
	// resumed nor timed out.
	Lost int
	// Wrong: executions resumed (or closed) otherwise than with the
	// decision that was made, or whose record says otherwise.
	Wrong int
	// ResumedTwice: executions whose task closed more than once in their
	// history.
	ResumedTwice int
	// NotFinal: request messages that do not show their approval's end,
	// or still have a button.
	NotFinal int
	// PostedTwice: requests with more than one message.
	PostedTwice int
	// AuditMissing and AuditTwice: events of a decision (the request, its
	// message, votes, hand-overs, the decision, the resume or close)
	// missing from the audit trail, or in it more than once.
	AuditMissing, AuditTwice int
	// HomesUnanswered: App Homes never published, though opened three
	// times.
	HomesUnanswered int
	// Crashed: replicas that exited without being stopped; Races: data
	// races the replicas reported.
	Crashed, Races int
	// GoroutineGrowth and FDGrowth: surviving replicas that hold more
	// goroutines or open files after the run than before (beyond the
	// options' slack).
	GoroutineGrowth, FDGrowth int

	problems []problem
	usage    []usageChange
}

// problem is what is wrong with one approval.
type problem struct {
	it   *item
	what string
}

type usageChange struct {
	r             *replica
	before, after usage
	err           error
}

// Total is the sum of the counts.
func (f Findings) Total() int {
	return f.Lost + f.Wrong + f.ResumedTwice + f.NotFinal + f.PostedTwice + f.AuditMissing + f.AuditTwice +
		f.HomesUnanswered + f.Crashed + f.Races + f.GoroutineGrowth + f.FDGrowth
}

func (f *Findings) merge(g Findings) {
	f.Crashed += g.Crashed
	f.Races += g.Races
	f.GoroutineGrowth += g.GoroutineGrowth
	f.FDGrowth += g.FDGrowth
	f.usage = append(f.usage, g.usage...)
}

func (f *Findings) add(it *item, count *int, format string, args ...any) {
	*count++
	f.problems = append(f.problems, problem{it: it, what: fmt.Sprintf(format, args...)})
}

// settle waits until the checks find nothing, or Settle passes, and
// returns the last findings, with the execution histories checked.
func (r *run) settle(ctx context.Context) (Findings, error) {
	wait, cancel := context.WithTimeout(ctx, r.o.Settle)
	defer cancel()
	for {
		f, err := r.check(wait, false)
		switch {
		case err == nil && f.Total() == 0:
			return r.check(ctx, true)
		case wait.Err() != nil:
			if ctx.Err() != nil {
				return f, ctx.Err()
			}
			return r.check(ctx, true)
		}
		r.pause(wait, 3*time.Second)
	}
}

// check compares what every approval's people did with what became of
// its execution, its record, its message and its audit trail. With
// histories, it also reads each execution's history.
func (r *run) check(ctx context.Context, histories bool) (Findings, error) {
	var f Findings
	events := map[string][]workflow.AuditEvent{}
	err := r.stack.Service.ExportAudit(ctx, r.start.Add(-time.Hour), time.Now().Add(time.Hour), func(e workflow.AuditEvent) error {
		events[e.ApprovalID] = append(events[e.ApprovalID], e)
		return nil
	})
	if err != nil {
		return f, fmt.Errorf("read the audit trail: %w", err)
	}
	messages := map[string]map[string][]fakeslack.Message{} // channel → approval ID → its request messages
	var client *sfn.Client
	if histories {
		client = stepfunctionstest.NewClient(ctx, r.stack.SFN.URL())
	}
	for _, it := range r.plan {
		if it.id() == "" {
			f.add(it, &f.Lost, "never requested")
			continue
		}
		a, err := r.stack.Service.Get(ctx, it.id())
		if err != nil {
			return f, fmt.Errorf("read approval %s: %w", it.id(), err)
		}
		o := r.stack.SFN.Outcome(it.pending.Token)
		if o.State == stepfunctionstest.StateOpen {
			f.add(it, &f.Lost, "the execution still waits (the approval is %s)%s", a.Status, r.lastAck(it))
		} else if why := judge(it, o, a); why != "" {
			f.add(it, &f.Wrong, "%s", why)
		}
		if histories {
			if n, err := closes(ctx, client, it.pending.ExecutionARN); err != nil {
				return f, err
			} else if n > 1 {
				f.add(it, &f.ResumedTwice, "its task closed %d times", n)
			}
		}
		if messages[it.channel] == nil {
			messages[it.channel] = requestMessages(r.slack.Messages(it.channel), r.slack.BotUserID())
		}
		r.checkMessage(&f, it, a, messages[it.channel][it.id()])
		checkAudit(&f, it, a, events[it.id()])
	}
	r.mu.Lock()
	for _, h := range r.homes {
		if !h.published {
			f.HomesUnanswered++
		}
	}
	r.mu.Unlock()
	return f, nil
}

// lastAck describes the last acknowledged click or submission of it that
// nothing answered, and what became of the replica Slack delivered it to;
// and a delegate who never heard of a hand-over.
func (r *run) lastAck(it *item) string {
	it.mu.Lock()
	givenUp := it.givenUp
	it.mu.Unlock()
	if givenUp != "" {
		givenUp = "; " + givenUp
	}
	return r.unanswered(it) + givenUp
}

// unanswered describes the last acknowledged click or submission of it
// that nothing answered, if any.
func (r *run) unanswered(it *item) string {
	acts := it.actions()
	for i := len(acts) - 1; i >= 0; i-- {
		a := acts[i]
		if !a.acked || a.answered {
			continue
		}
		d := r.slack.Deliveries(a.envelope)
		if len(d) == 0 {
			return ""
		}
		socket := d[len(d)-1].Socket
		r.mu.Lock()
		rep := r.sockets[socket]
		r.mu.Unlock()
		s := fmt.Sprintf("; %s's %s (%s) was acked by %s at %.3fs and nothing answered it", a.who, a.what, a.envelope, r.replicaOf(socket), a.at.Sub(r.start).Seconds())
		if rep == nil {
			return s
		}
		rep.mu.Lock()
		defer rep.mu.Unlock()
		if rep.stopping != "" && rep.signalled.After(a.at) {
			s += fmt.Sprintf(", which got %s %s later", rep.stopping, rep.signalled.Sub(a.at).Round(time.Millisecond))
		}
		return s
	}
	return ""
}

// requestMessages groups a channel's messages by the approval whose
// buttons or outcome they show (their blocks name its ID).
func requestMessages(all []fakeslack.Message, bot string) map[string][]fakeslack.Message {
	out := map[string][]fakeslack.Message{}
	for _, m := range all {
		if m.User != bot || m.Ephemeral || (m.ThreadTS != "" && m.ThreadTS != m.TS) {
			continue
		}
		for _, id := range slices.Compact(slices.Sorted(slices.Values(approvalID.FindAllString(string(m.Blocks), -1)))) {
			out[id] = append(out[id], m)
		}
	}
	return out
}

func (r *run) checkMessage(f *Findings, it *item, a workflow.Approval, msgs []fakeslack.Message) {
	switch {
	case len(msgs) == 0:
		f.add(it, &f.NotFinal, "no request message")
		return
	case len(msgs) > 1:
		var ts []string
		for _, m := range msgs {
			ts = append(ts, m.TS)
		}
		f.add(it, &f.PostedTwice, "%d request messages (%s)", len(msgs), strings.Join(ts, ", "))
	}
	m := msgs[0]
	for _, x := range msgs {
		if x.TS == a.MessageTS {
			m = x
		}
	}
	switch want := blocks.OutcomeMessage(a).Text; {
	case m.TS != a.MessageTS:
		f.add(it, &f.NotFinal, "the record names message %s, Slack holds %s", a.MessageTS, m.TS)
	case len(fakeslack.ButtonActions(m.Blocks)) > 0:
		f.add(it, &f.NotFinal, "its message still has buttons (the approval is %s)", a.Status)
	case !a.Status.Final():
		f.add(it, &f.NotFinal, "the approval is %s", a.Status)
	case m.Text != want:
		f.add(it, &f.NotFinal, "its message says %q, not %q", m.Text, want)
	}
}

// outcome is what an execution received.
type outcome struct {
	State       string
	Action      string                    `json:"action"`
	DecidedBy   string                    `json:"decidedBy"`
	Preset      string                    `json:"preset"`
	Feedback    string                    `json:"feedback"`
	Approvals   []struct{ UserID string } `json:"approvals"`
	Delegations []struct{ From, To string }
	Error       string
	Cause       string
}

func (o outcome) String() string {
	switch o.State {
	case stepfunctionstest.StateSucceeded:
		s := fmt.Sprintf("resumed with %s by %s", o.Action, o.DecidedBy)
		if len(o.Approvals) > 1 {
			s += fmt.Sprintf(" (approvals %s)", strings.Join(o.approvers(), ", "))
		}
		return s
	case stepfunctionstest.StateFailed:
		return fmt.Sprintf("failed with %s: %q", o.Error, o.Cause)
	}
	return o.State
}

func (o outcome) approvers() []string {
	var out []string
	for _, a := range o.Approvals {
		out = append(out, a.UserID)
	}
	slices.Sort(out)
	return out
}

// judge says what is wrong with what the execution received (o) and what
// the record says (a), given what its people did; "" when nothing is.
func judge(it *item, task stepfunctionstest.Outcome, a workflow.Approval) string {
	o := outcome{State: task.State, Error: task.Error, Cause: task.Cause}
	if task.State == stepfunctionstest.StateSucceeded {
		if err := json.Unmarshal([]byte(task.Output), &o); err != nil {
			return fmt.Sprintf("resumed with output that is not JSON: %v", err)
		}
	}
	if why := againstRecord(o, a); why != "" {
		return why
	}
	w := it.who
	approvedBy := func(who string) bool {
		return o.State == stepfunctionstest.StateSucceeded && o.Action == string(workflow.ActionApprove) && o.DecidedBy == who
	}
	expired := o.State == stepfunctionstest.StateTimedOut ||
		(o.State == stepfunctionstest.StateFailed && o.Error == workflow.ErrorApprovalExpired)
	ok := false
	switch it.kind {
	case kindApprove:
		ok = approvedBy(w.approver) && slices.Equal(o.approvers(), []string{w.approver})
	case kindReject:
		ok = o.State == stepfunctionstest.StateFailed && o.Error == workflow.ErrorRejected && o.Cause == it.reason &&
			a.Decision != nil && a.Decision.DecidedBy == w.member
	case kindRevise:
		ok = o.State == stepfunctionstest.StateSucceeded && o.Action == string(workflow.ActionRevise) && o.DecidedBy == w.approver &&
			o.Preset == "Shorter" && o.Feedback == "Shorter\n"+it.reason
	case kindQuorum:
		want := []string{w.approver, w.member}
		slices.Sort(want)
		ok = (approvedBy(w.approver) || approvedBy(w.member)) && slices.Equal(o.approvers(), want)
	case kindHandOver:
		ok = approvedBy(w.delegate) && len(o.Delegations) == 1 && o.Delegations[0].From == w.approver && o.Delegations[0].To == w.delegate
	case kindDouble:
		ok = approvedBy(w.approver) ||
			(it.variant == "two" && o.State == stepfunctionstest.StateSucceeded && o.Action == string(workflow.ActionSkip) && o.DecidedBy == w.member)
	case kindDeadline:
		ok = expired || (it.variant == "before" && approvedBy(w.approver))
	}
	if !ok {
		return fmt.Sprintf("%s, which no one of its people decided (%s)", o, it.intent())
	}
	return ""
}

// againstRecord says how the approval's record disagrees with what its
// execution received; "" when it does not.
func againstRecord(o outcome, a workflow.Approval) string {
	d := a.Decision
	switch o.State {
	case stepfunctionstest.StateSucceeded, stepfunctionstest.StateFailed:
		if o.Error == workflow.ErrorApprovalExpired {
			if a.Status != workflow.StatusExpired {
				return fmt.Sprintf("%s, but the approval is %s", o, a.Status)
			}
			return ""
		}
		switch {
		case a.Status != workflow.StatusDecided || d == nil:
			return fmt.Sprintf("%s, but the approval is %s", o, a.Status)
		case o.State == stepfunctionstest.StateSucceeded && (string(d.Action) != o.Action || d.DecidedBy != o.DecidedBy):
			return fmt.Sprintf("%s, but the approval records %s by %s", o, d.Action, d.DecidedBy)
		case o.State == stepfunctionstest.StateFailed && d.Action != workflow.ActionReject:
			return fmt.Sprintf("%s, but the approval records %s by %s", o, d.Action, d.DecidedBy)
		}
	case stepfunctionstest.StateTimedOut:
		if a.Status != workflow.StatusExpired {
			return fmt.Sprintf("the task timed out, but the approval is %s", a.Status)
		}
	}
	return ""
}

// intent says what its people were to do.
func (it *item) intent() string {
	w := it.who
	switch it.kind {
	case kindApprove:
		return w.approver + " approves"
	case kindReject:
		return fmt.Sprintf("%s (of %s) rejects: %q", w.member, w.group, it.reason)
	case kindRevise:
		return fmt.Sprintf("%s requests changes: Shorter, %q", w.approver, it.reason)
	case kindQuorum:
		return fmt.Sprintf("quorum 2: %s and %s (of %s) approve", w.approver, w.member, w.group)
	case kindHandOver:
		return fmt.Sprintf("%s hands over to %s, who approves", w.approver, w.delegate)
	case kindDouble:
		if it.variant == "two" {
			return fmt.Sprintf("at once on two replicas: %s approves, %s skips", w.approver, w.member)
		}
		return fmt.Sprintf("%s approves twice at once, on two replicas", w.approver)
	case kindDeadline:
		switch it.variant {
		case "before":
			return fmt.Sprintf("%s approves %s before the deadline (%ds)", w.approver, -it.at, int(it.deadline/time.Second))
		case "after":
			return fmt.Sprintf("%s approves %s after the deadline (%ds)", w.approver, it.at, int(it.deadline/time.Second))
		}
		return fmt.Sprintf("nobody decides before the deadline (%ds)", int(it.deadline/time.Second))
	}
	return string(it.kind)
}

// closes counts the events that closed the execution's task in its
// history: a resume (success or failure) or a time-out.
func closes(ctx context.Context, client *sfn.Client, arn string) (int, error) {
	n := 0
	p := sfn.NewGetExecutionHistoryPaginator(client, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return 0, fmt.Errorf("history of %s: %w", arn, err)
		}
		for _, e := range page.Events {
			switch e.Type {
			case "TaskSucceeded", "TaskFailed", "TaskTimedOut":
				n++
			}
		}
	}
	return n, nil
}

// checkAudit compares the approval's audit trail with its record: the
// request and its message once; each vote, hand-over, the decision and
// the resume or close once.
func checkAudit(f *Findings, it *item, a workflow.Approval, events []workflow.AuditEvent) {
	type key struct {
		typ   workflow.EventType
		actor string
		to    string
	}
	got := map[key]int{}
	seqs := map[int]int{}
	for _, e := range events {
		seqs[e.Seq]++
		k := key{typ: e.Type, actor: e.Actor}
		switch e.Type {
		case workflow.EventDelegated:
			if len(e.Users) > 0 {
				k.to = e.Users[0]
			}
		case workflow.EventRequested, workflow.EventClosed, workflow.EventPosted:
			k.actor = ""
		case workflow.EventReminded, workflow.EventEscalated:
			continue // steps of the lifecycle, none in these requests
		}
		got[k]++
	}
	want := map[key]int{{typ: workflow.EventRequested}: 1}
	if a.MessageTS != "" {
		want[key{typ: workflow.EventPosted}] = 1
	}
	if a.Quorum() > 1 {
		for _, v := range a.Votes {
			want[key{typ: workflow.EventVoted, actor: v.UserID}] = 1
		}
	}
	for _, x := range a.Delegations {
		want[key{typ: workflow.EventDelegated, actor: x.From, to: x.To}] = 1
	}
	if d := a.Decision; d != nil && d.Action != workflow.ActionExpire {
		want[key{typ: workflow.EventDecided, actor: d.DecidedBy}] = 1
	}
	switch {
	case a.Status == workflow.StatusDecided && a.Decision != nil:
		want[key{typ: workflow.EventResumed, actor: a.Decision.DecidedBy}] = 1
	case a.Status.Final():
		want[key{typ: workflow.EventClosed}] = 1
	}
	for _, k := range slices.SortedFunc(mapKeys(want, got), func(x, y key) int {
		return strings.Compare(fmt.Sprint(x), fmt.Sprint(y))
	}) {
		name := string(k.typ)
		if k.actor != "" {
			name += " by " + k.actor
		}
		if k.to != "" {
			name += " to " + k.to
		}
		switch n := got[k]; {
		case n < want[k]:
			f.add(it, &f.AuditMissing, "the audit trail lacks %s", name)
		case n > want[k] && want[k] > 0:
			f.add(it, &f.AuditTwice, "the audit trail holds %s %d times", name, n)
		case n > want[k]:
			f.add(it, &f.AuditTwice, "the audit trail holds %s, which the record does not", name)
		}
	}
	for seq, n := range seqs {
		if n > 1 {
			f.add(it, &f.AuditTwice, "the audit trail holds %d events numbered %d", n, seq)
		}
	}
}

func mapKeys[K comparable, V any](ms ...map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		seen := map[K]bool{}
		for _, m := range ms {
			for k := range m {
				if !seen[k] {
					seen[k] = true
					if !yield(k) {
						return
					}
				}
			}
		}
	}
}

// replicaFindings reads the replicas: which crashed, which reported data
// races, and how the survivors' goroutines and open files compare with
// before the faults.
func (r *run) replicaFindings(ctx context.Context) Findings {
	var f Findings
	f.Crashed = len(r.fleet.crashed())
	for _, rep := range r.fleet.every() {
		rep.mu.Lock()
		f.Races += rep.races
		rep.mu.Unlock()
	}
	for _, rep := range r.fleet.current() {
		before, ok := r.baseline[rep]
		if rep == nil || !ok {
			continue
		}
		after, err := settledUsage(ctx, rep)
		f.usage = append(f.usage, usageChange{r: rep, before: before, after: after, err: err})
		if err != nil {
			f.GoroutineGrowth++
			continue
		}
		if after.goroutines > before.goroutines+r.o.GoroutineSlack {
			f.GoroutineGrowth++
		}
		if after.fds > before.fds+r.o.FDSlack {
			f.FDGrowth++
		}
	}
	return f
}
