package dynamo

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// openApprovals is the number of open approvals the sweep benchmarks
// hold in the table.
const openApprovals = 10000

// BenchmarkSweep measures one replica's sweep (Service.Recover, then the
// due message updates, Service.Unsynced) on a table of 10,000 open
// approvals, each with a deadline, default reminders and an escalation,
// with the execution checks on: the CPU of this process (DynamoDB Local
// runs in its own) and the DynamoDB calls per sweep, by operation, with
// nothing due and with 100 reminders due.
func BenchmarkSweep(b *testing.B) {
	base := newStore(b)
	now := t0.Add(time.Hour)
	var due []workflow.Approval
	items := make([]map[string]types.AttributeValue, 0, openApprovals)
	for i := range openApprovals {
		a := newApproval(fmt.Sprintf("token-sweep-%d", i), -time.Duration(i)*time.Second)
		a.Deadline = a.CreatedAt.Add(24 * time.Hour)
		a.Policy = workflow.Policy{Quorum: 1, AllowDelegation: true, EscalateTo: []string{"S0LEADS"}}
		a.Steps = []workflow.Step{
			{Kind: workflow.StepRemind, At: a.CreatedAt.Add(12 * time.Hour)},
			{Kind: workflow.StepEscalate, At: a.CreatedAt.Add(18 * time.Hour)},
			{Kind: workflow.StepRemind, At: a.CreatedAt.Add(21*time.Hour + 36*time.Minute)},
		}
		a.AgeBucket = 1 // past an hour: the next move is a day after the request
		if i < 100 {
			a.Steps[0].At = now.Add(-time.Minute)
			due = append(due, a)
		}
		items = append(items, recordItem(record{a: a, version: 1, entries: deciders(a), counted: 1}))
	}
	writeAll(b, base.table, items)

	c, calls := countedClient()
	svc := workflow.NewService(New(c, base.table), workflowtest.NewResumer(), nil)
	svc.Now, svc.Audit = func() time.Time { return now }, NewAuditLog(client, base.table, time.Hour)
	svc.Executions = workflowtest.NewExecutions()
	sweep := func() (workflow.RecoverReport, error) {
		rep, err := svc.Recover(b.Context())
		if err == nil {
			_, err = svc.Unsynced(b.Context(), 100)
		}
		return rep, err
	}

	for _, bc := range []struct {
		name  string
		reset bool // make the 100 reminders due again before each sweep
	}{
		{"nothing-due", false},
		{"100-due", true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if !bc.reset {
				if _, err := sweep(); err != nil { // nothing left due
					b.Fatal(err)
				}
			}
			var cpu time.Duration
			total := map[string]int64{}
			for b.Loop() {
				if bc.reset {
					b.StopTimer()
					var again []map[string]types.AttributeValue
					for _, a := range due {
						again = append(again, recordItem(record{a: a, version: 1, entries: deciders(a), counted: 1}))
					}
					writeAll(b, base.table, again)
					b.StartTimer()
				}
				counts := calls.Counts()
				before := cpuTime(b)
				rep, err := sweep()
				cpu += cpuTime(b) - before
				if err != nil || (bc.reset && len(rep.Reminded) != len(due)) {
					b.Fatalf("sweep = %d reminded, %v", len(rep.Reminded), err)
				}
				for op, n := range calls.Since(counts) {
					total[op] += n
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(cpu.Microseconds())/1000/n, "cpu-ms/sweep")
			for op, calls := range total {
				b.ReportMetric(float64(calls)/n, op+"/sweep")
			}
		})
	}
}

// writeAll writes the items with BatchWriteItem, 25 at a time.
func writeAll(tb testing.TB, table string, items []map[string]types.AttributeValue) {
	tb.Helper()
	for len(items) > 0 {
		n := min(25, len(items))
		var requests []types.WriteRequest
		for _, item := range items[:n] {
			requests = append(requests, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
		}
		items = items[n:]
		pending := map[string][]types.WriteRequest{table: requests}
		for len(pending) > 0 {
			out, err := client.BatchWriteItem(tb.Context(), &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				tb.Fatal(err)
			}
			pending = out.UnprocessedItems
		}
	}
}

// cpuTime is the CPU (user and system) this process used so far.
func cpuTime(tb testing.TB) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
