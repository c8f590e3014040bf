package definitions_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

type item struct {
	ID string `json:"id"`
}

// ItemProcessingFailed is the process-item function's error; Step
// Functions sees its type name as the error name.
type ItemProcessingFailed struct{ Message string }

func (e *ItemProcessingFailed) Error() string { return e.Message }

type batchFixture struct {
	*harness
	mu        sync.Mutex
	failTimes map[string]int // item ID → attempts left that fail
	processed []string       // item IDs, in the order of calls
}

// newBatchFixture registers process-item, which fails an item as many
// times as failTimes says, then succeeds.
func newBatchFixture(t *testing.T, failTimes map[string]int) *batchFixture {
	f := &batchFixture{harness: newHarness(t), failTimes: failTimes}
	register(f.harness, processItemFunction, func(in item) (map[string]any, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.processed = append(f.processed, in.ID)
		if f.failTimes[in.ID] > 0 {
			f.failTimes[in.ID]--
			return nil, &ItemProcessingFailed{Message: "item " + in.ID + ": upstream answered 503"}
		}
		return map[string]any{"id": in.ID, "done": true}, nil
	})
	return f
}

// processedSorted returns the processed item IDs, sorted: a distributed
// Map runs items concurrently.
func (f *batchFixture) processedSorted() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := slices.Clone(f.processed)
	slices.Sort(ids)
	return ids
}

func batchInput(extra map[string]any) map[string]any {
	in := map[string]any{
		"items":       []item{{"a"}, {"b"}, {"c"}, {"d"}},
		"requestedBy": requester,
	}
	for k, v := range extra {
		in[k] = v
	}
	return in
}

// failure is a failed item as the workflow reports it.
func failure(id string) map[string]any {
	return map[string]any{
		"item": map[string]any{"id": id},
		"error": map[string]any{
			"Error": "ItemProcessingFailed",
			"Cause": `{"errorMessage":"item ` + id + `: upstream answered 503","errorType":"ItemProcessingFailed"}`,
		},
	}
}

func TestBatchWithApprovedRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		failTimes map[string]int
		play      func(t *testing.T, f *batchFixture)
	}{
		{"all succeed", nil, func(t *testing.T, f *batchFixture) {
			arn := f.start(definitions.BatchWithApprovedRetries, batchInput(nil))
			f.succeeded(arn, map[string]any{"outcome": "completed", "retries": 0})
			if got := f.processedSorted(); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
				t.Errorf("processed %q, want each item once", got)
			}
			f.noMorePosts()
		}},
		{"retry of the failed items approved", map[string]int{"b": 1, "d": 1}, func(t *testing.T, f *batchFixture) {
			arn := f.start(definitions.BatchWithApprovedRetries, batchInput(nil))
			a := f.nextApproval()
			want := workflow.Approval{
				ExecutionARN: arn, StateName: "AskToRetry", Channel: channel,
				Approvers: []string{approver}, RequestedBy: requester,
				Title: "Retry the 2 failed items?",
				Fields: workflow.Fields{
					{Label: "Failed items", Value: "2"},
					{Label: "First error", Value: "ItemProcessingFailed"},
					{Label: "Retries so far", Value: "0 of 2"},
				},
				AllowSkip: true,
				Deadline:  epoch.Add(24 * time.Hour),
			}
			if diff := cmp.Diff(want, requestOf(a)); diff != "" {
				t.Errorf("retry request (-want +got):\n%s", diff)
			}
			f.decide(a, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: workflow.NoDraft})
			f.succeeded(arn, map[string]any{"outcome": "completed", "retries": 1})
			if got := f.processedSorted(); !slices.Equal(got, []string{"a", "b", "b", "c", "d", "d"}) {
				t.Errorf("processed %q, want every item once and only b and d again", got)
			}
			f.checkSubmissions(arn)
		}},
		{"retries exhausted", map[string]int{"b": 5}, func(t *testing.T, f *batchFixture) {
			arn := f.start(definitions.BatchWithApprovedRetries, batchInput(map[string]any{"retryLimit": 1}))
			a := f.nextApproval()
			if a.Title != "Retry the 1 failed items?" {
				t.Errorf("title %q", a.Title)
			}
			f.decide(a, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: workflow.NoDraft})
			x := f.wait(arn)
			const prefix = "1 items still failed after 1 retries: "
			if x.Status != "FAILED" || x.Error != "RetriesExhausted" || !strings.HasPrefix(x.Cause, prefix) {
				t.Fatalf("execution ended %s, %s: %s; want FAILED, RetriesExhausted: %s…", x.Status, x.Error, x.Cause, prefix)
			}
			if diff := cmp.Diff(normalize(t, []any{failure("b")}), normalize(t, strings.TrimPrefix(x.Cause, prefix))); diff != "" {
				t.Errorf("failures in the cause (-want +got):\n%s", diff)
			}
			if got := f.processedSorted(); !slices.Equal(got, []string{"a", "b", "b", "c", "d"}) {
				t.Errorf("processed %q, want b retried once", got)
			}
			f.noMorePosts()
			f.checkSubmissions(arn)
		}},
		{"skipped", map[string]int{"a": 1, "c": 1}, func(t *testing.T, f *batchFixture) {
			arn := f.start(definitions.BatchWithApprovedRetries, batchInput(nil))
			f.decide(f.nextApproval(), workflow.Decision{Action: workflow.ActionSkip, DraftIndex: workflow.NoDraft})
			f.succeeded(arn, map[string]any{
				"outcome": "completed-with-failures", "retries": 0,
				"failures":  []any{failure("a"), failure("c")},
				"skippedBy": approver,
			})
		}},
		{"rejected", map[string]int{"a": 1, "c": 1}, func(t *testing.T, f *batchFixture) {
			arn := f.start(definitions.BatchWithApprovedRetries, batchInput(nil))
			f.decide(f.nextApproval(), workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, Text: "Upstream is down; retry tomorrow."})
			f.failed(arn, "RetryRejected", "2 items failed and retrying them was rejected: Upstream is down; retry tomorrow.")
		}},
		{"withdrawn", map[string]int{"a": 1, "c": 1}, func(t *testing.T, f *batchFixture) {
			arn := f.start(definitions.BatchWithApprovedRetries, batchInput(nil))
			f.withdraw(f.nextApproval(), "Fixed upstream by hand.")
			f.failed(arn, "RetryWithdrawn", "2 items failed and the question whether to retry them was withdrawn: Withdrawn by "+requester+": Fixed upstream by hand.")
		}},
		{"timed out", map[string]int{"a": 1}, func(t *testing.T, f *batchFixture) {
			arn := f.start(definitions.BatchWithApprovedRetries, batchInput(map[string]any{"approvalTimeoutSeconds": 600}))
			f.nextApproval()
			f.clock.Advance(10 * time.Minute)
			f.failed(arn, "NotApproved", "1 items failed and nobody decided whether to retry them before the deadline (States.Timeout).")
		}},
		{"invalid approval request", map[string]int{"a": 1}, func(t *testing.T, f *batchFixture) {
			subs := deployed()
			subs[definitions.Approvers] = "alice"
			arn := f.startWith(definitions.BatchWithApprovedRetries, subs, batchInput(nil))
			f.failed(arn, "InvalidApprovalRequest", "The notifier refused the approval request, so nobody was asked: "+
				`invalid approval request: approver "alice" is neither a user ID (U…/W…) nor a user-group ID (S…). `+
				"Fix the execution input or the AskToRetry state.")
			f.noMorePosts()
		}},
		{"approvers in the input are refused", nil, func(t *testing.T, f *batchFixture) {
			arn := f.start(definitions.BatchWithApprovedRetries, batchInput(map[string]any{"approvers": []string{requester}}))
			f.failed(arn, "InvalidInput", approversInInput)
			if got := f.processedSorted(); len(got) != 0 {
				t.Errorf("processed %q before refusing the input", got)
			}
		}},
		{"requester left out", nil, func(t *testing.T, f *batchFixture) {
			in := batchInput(nil)
			delete(in, "requestedBy")
			f.failed(f.start(definitions.BatchWithApprovedRetries, in), "InvalidInput", requesterMissing)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.play(t, newBatchFixture(t, tt.failTimes))
		})
	}
}

// TestBatchFailedItemsShape pins what the workflow relies on: a failed
// child of the distributed Map leaves {"Error", "Cause"} in its slot of
// the Map's result, in item order.
func TestBatchFailedItemsShape(t *testing.T) {
	t.Parallel()
	f := newBatchFixture(t, map[string]int{"b": 1})
	arn := f.start(definitions.BatchWithApprovedRetries, batchInput(nil))
	f.nextApproval()
	var processed string
	for _, ev := range f.history(arn) {
		if d, ok := ev.Details.(*sfnlocal.StateExitedEventDetails); ok && d.Name == "Process" {
			processed = d.Output
		}
	}
	var out struct {
		Processed struct {
			Failed []string `json:"failed"`
		} `json:"processed"`
	}
	if err := json.Unmarshal([]byte(processed), &out); err != nil {
		t.Fatalf("Process output %q: %v", processed, err)
	}
	want := fmt.Sprintf(`{"error":%s,"item":{"id":"b"}}`, mustJSON(t, failure("b")["error"]))
	if len(out.Processed.Failed) != 1 {
		t.Fatalf("failed causes %q, want one", out.Processed.Failed)
	}
	if diff := cmp.Diff(normalize(t, want), normalize(t, out.Processed.Failed[0])); diff != "" {
		t.Errorf("cause of the failed child (-want +got):\n%s", diff)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
