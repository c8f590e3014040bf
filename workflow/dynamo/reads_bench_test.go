package dynamo

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// BenchmarkReaderWork measures what a person's /approvals pending and App
// Home read on a table of 10,000 open approvals for other people (half
// for 100 people, half for a user group the reader is not in) and 3 for
// the reader: as approver, as delegate, and, in the "group" cases, as a
// member of a user group (else once escalated to them). It reports the
// latency (p50, p99) and the DynamoDB calls per read, by operation. The
// Home is what the App Home reads: the pending approvals and the last 10
// acts of the reader's history.
func BenchmarkReaderWork(b *testing.B) {
	const reader = "U0READER"
	var items []map[string]types.AttributeValue
	add := func(a workflow.Approval) {
		items = append(items, recordItem(record{a: a, version: 1, entries: deciders(a)}))
		for _, d := range deciders(a) {
			items = append(items, entryItem(d, a))
		}
	}
	for i := range openApprovals {
		a := newApproval(fmt.Sprintf("token-reads-%d", i), -time.Duration(i)*time.Second)
		a.Approvers = []string{fmt.Sprintf("U0OTHER%03d", i%100)}
		if i%2 == 1 {
			a.Approvers = []string{"S0OTHERS"}
		}
		add(a)
	}
	mine := func(group bool) []workflow.Approval {
		approver := newApproval("token-mine-approver", time.Minute)
		approver.Approvers = []string{reader, "U0OTHER001"}
		delegated := newApproval("token-mine-delegate", 2*time.Minute)
		delegated.Policy.AllowDelegation = true
		delegated.Delegations = []workflow.Delegation{{From: "U0OTHER002", To: reader, At: t0}}
		third := newApproval("token-mine-third", 3*time.Minute)
		if group {
			third.Approvers = []string{"S0MINE"}
		} else {
			third.Policy.EscalateTo = []string{reader}
			third.Steps = []workflow.Step{{Kind: workflow.StepEscalate, At: t0, DoneAt: t0}}
		}
		return []workflow.Approval{approver, delegated, third}
	}
	now := t0.Add(time.Hour)
	var acts []workflow.AuditEvent
	for i := range 20 {
		acts = append(acts, workflow.AuditEvent{ApprovalID: fmt.Sprintf("ap_past%02d", i), Seq: 2, At: t0.Add(time.Duration(i) * time.Minute), Type: workflow.EventDecided, Actor: reader, Action: workflow.ActionApprove})
	}

	for _, group := range []bool{false, true} {
		table := newStore(b).table
		writeAll(b, table, items)
		var own []map[string]types.AttributeValue
		for _, a := range mine(group) {
			own = append(own, recordItem(record{a: a, version: 1, entries: deciders(a)}))
			for _, d := range deciders(a) {
				own = append(own, entryItem(d, a))
			}
		}
		writeAll(b, table, own)
		groups := []string{"S0OTHERS"}
		if group {
			groups = append(groups, "S0MINE")
		}
		if err := New(client, table).markGroups(b.Context(), groups, now.Add(24*time.Hour)); err != nil {
			b.Fatal(err)
		}
		for _, e := range acts {
			if err := NewAuditLog(client, table, time.Hour).Append(b.Context(), workflow.Approval{ID: e.ApprovalID, Title: "Past"}, []workflow.AuditEvent{e}); err != nil {
				b.Fatal(err)
			}
		}
		c, calls := countedClient()
		dir := workflowtest.NewDirectory(map[string][]string{"S0OTHERS": {"U0OTHER000"}, "S0MINE": {reader}})
		svc := workflow.NewService(New(c, table), nil, dir)
		svc.Now, svc.Audit = func() time.Time { return now }, NewAuditLog(c, table, time.Hour)
		kind := "direct"
		if group {
			kind = "group"
		}
		for _, read := range []struct {
			name string
			run  func() error
		}{
			{"pending", func() error {
				list, err := svc.PendingFor(b.Context(), reader, 1000)
				if err == nil && len(list) != 3 {
					err = fmt.Errorf("%d pending, want 3", len(list))
				}
				return err
			}},
			{"home", func() error {
				list, err := svc.PendingFor(b.Context(), reader, 1000)
				if err == nil && len(list) != 3 {
					err = fmt.Errorf("%d pending, want 3", len(list))
				}
				if err != nil {
					return err
				}
				h, err := svc.DecidedBy(b.Context(), reader, 10)
				if err == nil && len(h) != 10 {
					err = fmt.Errorf("%d history entries, want 10", len(h))
				}
				return err
			}},
		} {
			b.Run(kind+"/"+read.name, func(b *testing.B) {
				var took []time.Duration
				total := map[string]int64{}
				for b.Loop() {
					before := calls.Counts()
					start := time.Now()
					if err := read.run(); err != nil {
						b.Fatal(err)
					}
					took = append(took, time.Since(start))
					for op, n := range calls.Since(before) {
						total[op] += n
					}
				}
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(took[(len(took)*99+99)/100-1].Microseconds())/1000, "p99-ms")
				for op, n := range total {
					b.ReportMetric(float64(n)/float64(b.N), op+"/read")
				}
			})
		}
	}
}
