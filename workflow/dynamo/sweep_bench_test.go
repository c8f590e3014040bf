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

// BenchmarkSweepDeadlineWork measures one replica's deadline work
// (Service.Advance) on a table of 10,000 open approvals, each with a
// deadline, default reminders and an escalation: the CPU of this process
// (DynamoDB Local runs in its own) and the DynamoDB calls, per sweep, with
// nothing due and with 100 reminders due. For comparison, the whole
// Recover, which also reads the pending queue whole for the execution
// checks and the open-approvals gauge.
func BenchmarkSweepDeadlineWork(b *testing.B) {
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
		if i < 100 {
			a.Steps[0].At = now.Add(-time.Minute)
			due = append(due, a)
		}
		items = append(items, encode(a, 1))
	}
	writeAll(b, base.table, items)

	c, calls := countedClient()
	svc := workflow.NewService(New(c, base.table), workflowtest.NewResumer(), nil)
	svc.Now, svc.Audit = func() time.Time { return now }, NewAuditLog(client, base.table, time.Hour)

	for _, bc := range []struct {
		name  string
		reset bool // make the 100 reminders due again before each sweep
		sweep func() (workflow.RecoverReport, error)
	}{
		{"advance/nothing-due", false, func() (workflow.RecoverReport, error) { return svc.Advance(b.Context()) }},
		{"advance/100-due", true, func() (workflow.RecoverReport, error) { return svc.Advance(b.Context()) }},
		{"recover/nothing-due", false, func() (workflow.RecoverReport, error) { return svc.Recover(b.Context()) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if !bc.reset {
				if _, err := svc.Advance(b.Context()); err != nil { // nothing left due
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
						again = append(again, encode(a, 1))
					}
					writeAll(b, base.table, again)
					b.StartTimer()
				}
				counts := calls.Counts()
				before := cpuTime(b)
				rep, err := bc.sweep()
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
