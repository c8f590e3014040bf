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

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

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
