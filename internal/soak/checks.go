package soak

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

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
