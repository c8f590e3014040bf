package definitions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// ItemFailed is the process-item function's business failure: Step
// Functions sees its type name as the error name, which the Lambda
// variant does not retry.
type ItemFailed struct{ Message string }

func (e *ItemFailed) Error() string { return e.Message }

// UpstreamUnavailable is a technical failure of the function: retried.
type UpstreamUnavailable struct{ Message string }

func (e *UpstreamUnavailable) Error() string { return e.Message }

// The batch workflows: one scenario table runs against both.
var batchVariants = []struct{ name, file string }{
	{"ecs", definitions.BatchWithApprovedRetries},
	{"lambda", definitions.BatchWithApprovedRetriesLambda},
}

// outcome is what the worker does with an item on one attempt.
type outcome int

const (
	processed outcome = iota
	rejected          // a business failure: ECS exit code 3, Lambda ItemFailed
	broke             // a technical failure: ECS exit code 1, Lambda UpstreamUnavailable
)

// batchFixture runs a batch workflow whose worker (the ECS task and the
// Lambda function alike) rejects an item with "fail": true once and one
// with "fail": "always" every time, and breaks on "flaky": true once.
type batchFixture struct {
	*harness
	mu       sync.Mutex
	attempts map[string]int
	calls    []string // item IDs, in the order of calls
}

func newBatchFixture(t *testing.T) *batchFixture {
	f := &batchFixture{harness: newHarness(t), attempts: map[string]int{}}
	registerWorker(f.harness, func(item map[string]any) int {
		switch f.work(item) {
		case rejected:
			return 3
		case broke:
			return 1
		}
		return 0
	})
	register(f.harness, processItemFunction, func(item map[string]any) (map[string]any, error) {
		switch f.work(item) {
		case rejected:
			return nil, &ItemFailed{Message: fmt.Sprintf("item %v: the amount is negative", item["id"])}
		case broke:
			return nil, &UpstreamUnavailable{Message: "the ledger answered 503"}
		}
		return map[string]any{"id": item["id"], "done": true}, nil
	})
	return f
}

func (f *batchFixture) work(item map[string]any) outcome {
	id, _ := item["id"].(string)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, id)
	f.attempts[id]++
	first := f.attempts[id] == 1
	switch {
	case item["fail"] == "always", item["fail"] == true && first:
		return rejected
	case item["flaky"] == true && first:
		return broke
	}
	return processed
}

// processedSorted returns the item IDs of every attempt, sorted: a
// distributed Map runs items concurrently.
func (f *batchFixture) processedSorted() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := slices.Clone(f.calls)
	slices.Sort(ids)
	return ids
}

// items writes the items as the JSON array the execution reads and
// returns the input that names it.
func (f *batchFixture) items(key string, items []map[string]any, extra map[string]any) map[string]any {
	b, _ := json.Marshal(items)
	f.putObject(key, string(b))
	in := map[string]any{"itemsKey": key, "requestedBy": requester}
	for k, v := range extra {
		in[k] = v
	}
	return in
}

// retried lets Retry's waits pass: it waits until n retries are pending,
// beside the execution's own time limit, and moves the clock past their
// backoff (at most 60 s with full jitter).
func (f *batchFixture) retried(n int) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := f.clock.BlockUntil(ctx, n+1); err != nil {
		f.t.Fatalf("no %d retries became pending: %v", n, err)
	}
	f.clock.Advance(time.Minute)
}

// batchResult is the output of a batch workflow.
type batchResult struct {
	Outcome string `json:"outcome"`
	Retries int    `json:"retries"`
	Counts  struct {
		Rounds           int `json:"rounds"`
		FailedFirstRound int `json:"failedFirstRound"`
		FailedFinal      int `json:"failedFinal"`
		BusinessFinal    int `json:"businessFinal"`
		TechnicalFinal   int `json:"technicalFinal"`
	} `json:"counts"`
	FailedWorkersFinal []struct {
		Item  map[string]any `json:"item"`
		Error string         `json:"error"`
		Cause string         `json:"cause"`
	} `json:"failedWorkersFinal"`
	FailedResults *struct {
		Bucket string
		Keys   []string
	} `json:"failedResults"`
	Rounds []struct {
		Round     int `json:"round"`
		Failed    int `json:"failed"`
		Business  int `json:"business"`
		Technical int `json:"technical"`
		Manifest  struct{ Bucket, Key string }
	} `json:"rounds"`
	SkippedBy string `json:"skippedBy"`
}

func (f *batchFixture) result(arn string) batchResult {
	f.t.Helper()
	x := f.wait(arn)
	if x.Status != "SUCCEEDED" {
		f.t.Fatalf("status %s (%s: %s), want SUCCEEDED\nhistory:\n%s", x.Status, x.Error, x.Cause, f.historyText(arn))
	}
	var r batchResult
	dec := json.NewDecoder(strings.NewReader(x.Output))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		f.t.Fatalf("output %s: %v", x.Output, err)
	}
	return r
}

func TestBatchWithApprovedRetries(t *testing.T) {
	t.Parallel()
	abc := []map[string]any{{"id": "a"}, {"id": "b"}, {"id": "c"}}
	tests := []struct {
		name string
		play func(t *testing.T, f *batchFixture, file string)
	}{
		{"all succeed", func(t *testing.T, f *batchFixture, file string) {
			arn := f.start(file, f.items("in/abc.json", abc, nil))
			r := f.result(arn)
			if r.Outcome != "completed" || r.Retries != 0 || r.Counts.Rounds != 1 || r.Counts.FailedFinal != 0 || len(r.FailedWorkersFinal) != 0 || r.FailedResults != nil {
				t.Errorf("result %+v", r)
			}
			if got := f.processedSorted(); !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Errorf("processed %q, want each item once", got)
			}
			f.noMorePosts()
		}},
		{"a technical failure is retried without a person", func(t *testing.T, f *batchFixture, file string) {
			arn := f.start(file, f.items("in/flaky.json", []map[string]any{{"id": "a"}, {"id": "b", "flaky": true}}, nil))
			f.retried(1)
			if r := f.result(arn); r.Outcome != "completed" || r.Counts.FailedFinal != 0 {
				t.Errorf("result %+v", r)
			}
			if got := f.processedSorted(); !slices.Equal(got, []string{"a", "b", "b"}) {
				t.Errorf("processed %q, want b twice", got)
			}
			f.noMorePosts()
		}},
		{"technical and business failures: the retry approved, one fails for good", func(t *testing.T, f *batchFixture, file string) {
			items := []map[string]any{{"id": "a"}, {"id": "b", "flaky": true}, {"id": "c", "fail": true}, {"id": "d", "fail": "always"}}
			arn := f.start(file, f.items("in/mixed.json", items, map[string]any{"retryLimit": 1}))
			f.retried(1)
			a := f.nextApproval()
			want := workflow.Approval{
				ExecutionARN: arn, StateName: "AskToRetry", Channel: channel,
				Approvers: []string{approver}, RequestedBy: requester,
				Title: "Retry the 2 failed items?",
				Fields: workflow.Fields{
					{Label: "Failed items", Value: "2 (2 rejected by the worker, 0 technical after automatic retries)"},
					{Label: "Sample", Value: `{"fail":true,"id":"c"}: ItemFailed`}, // the file's member order
					{Label: "Retries so far", Value: "0 of 1"},
				},
				AllowSkip: true,
				Deadline:  epoch.Add(24*time.Hour + time.Minute), // after the minute Retry waited
			}
			if diff := cmp.Diff(want, requestOf(a)); diff != "" {
				t.Errorf("retry request (-want +got):\n%s", diff)
			}
			f.decide(a, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: workflow.NoDraft})
			r := f.result(arn)
			if r.Outcome != "retries-exhausted" || r.Retries != 1 || r.Counts.Rounds != 2 || r.Counts.FailedFirstRound != 2 ||
				r.Counts.FailedFinal != 1 || r.Counts.BusinessFinal != 1 || r.Counts.TechnicalFinal != 0 {
				t.Errorf("result %+v", r)
			}
			if len(r.FailedWorkersFinal) != 1 || r.FailedWorkersFinal[0].Item["id"] != "d" || r.FailedWorkersFinal[0].Error != "ItemFailed" || r.FailedWorkersFinal[0].Cause == "" {
				t.Errorf("failedWorkersFinal %+v", r.FailedWorkersFinal)
			}
			if r.FailedResults == nil || r.FailedResults.Bucket != batchBucket || len(r.FailedResults.Keys) != 1 || !strings.HasPrefix(r.FailedResults.Keys[0], "batch-results/") {
				t.Fatalf("failedResults %+v", r.FailedResults)
			}
			// The failures are read back from the results in S3.
			var failed []struct{ Error, Input string }
			if err := json.Unmarshal([]byte(f.getObject(r.FailedResults.Keys[0])), &failed); err != nil || len(failed) != 1 || failed[0].Error != "ItemFailed" || failed[0].Input != `{"item":{"fail":"always","id":"d"}}` {
				t.Errorf("FAILED file %+v (%v)", failed, err)
			}
			if len(r.Rounds) != 2 || r.Rounds[0].Failed != 2 || r.Rounds[1].Failed != 1 || r.Rounds[1].Manifest.Bucket != batchBucket {
				t.Errorf("rounds %+v", r.Rounds)
			}
			if got := f.processedSorted(); !slices.Equal(got, []string{"a", "b", "b", "c", "c", "d", "d"}) {
				t.Errorf("processed %q, want b retried by Retry, c and d by the approved retry", got)
			}
			f.noMorePosts()
			f.checkSubmissions(arn)
		}},
		{"skipped", func(t *testing.T, f *batchFixture, file string) {
			arn := f.start(file, f.items("in/skip.json", []map[string]any{{"id": "a", "fail": true}, {"id": "b"}}, nil))
			f.decide(f.nextApproval(), workflow.Decision{Action: workflow.ActionSkip, DraftIndex: workflow.NoDraft})
			r := f.result(arn)
			if r.Outcome != "completed-with-failures" || r.SkippedBy != approver || r.Counts.FailedFinal != 1 || len(r.FailedWorkersFinal) != 1 || r.FailedWorkersFinal[0].Item["id"] != "a" {
				t.Errorf("result %+v", r)
			}
		}},
		{"rejected", func(t *testing.T, f *batchFixture, file string) {
			arn := f.start(file, f.items("in/reject.json", []map[string]any{{"id": "a", "fail": true}, {"id": "c", "fail": true}}, nil))
			f.decide(f.nextApproval(), workflow.Decision{Action: workflow.ActionReject, DraftIndex: workflow.NoDraft, Text: "The amounts are wrong at the source."})
			f.failed(arn, "RetryRejected", "2 items failed and retrying them was rejected: The amounts are wrong at the source.")
		}},
		{"withdrawn", func(t *testing.T, f *batchFixture, file string) {
			arn := f.start(file, f.items("in/withdraw.json", []map[string]any{{"id": "a", "fail": true}, {"id": "c", "fail": true}}, nil))
			f.withdraw(f.nextApproval(), "Fixed upstream by hand.")
			f.failed(arn, "RetryWithdrawn", "2 items failed and the question whether to retry them was withdrawn: Withdrawn by "+requester+": Fixed upstream by hand.")
		}},
		{"timed out", func(t *testing.T, f *batchFixture, file string) {
			arn := f.start(file, f.items("in/timeout.json", []map[string]any{{"id": "a", "fail": true}}, map[string]any{"approvalTimeoutSeconds": 600}))
			f.nextApproval()
			f.clock.Advance(10 * time.Minute)
			f.failed(arn, "NotApproved", "1 items failed and nobody decided whether to retry them before the deadline (States.Timeout).")
		}},
		{"invalid approval request", func(t *testing.T, f *batchFixture, file string) {
			subs := deployed()
			subs[definitions.Approvers] = "alice"
			arn := f.startWith(file, subs, f.items("in/invalid.json", []map[string]any{{"id": "a", "fail": true}}, nil))
			f.failed(arn, "InvalidApprovalRequest", "The notifier refused the approval request, so nobody was asked: "+
				`invalid approval request: approver "alice" is neither a user ID (U…/W…) nor a user-group ID (S…). `+
				"Fix the execution input or the AskToRetry state.")
			f.noMorePosts()
		}},
		{"approvers in the input are refused", func(t *testing.T, f *batchFixture, file string) {
			arn := f.start(file, f.items("in/approvers.json", abc, map[string]any{"approvers": []string{requester}}))
			f.failed(arn, "InvalidInput", approversInInput)
			if got := f.processedSorted(); len(got) != 0 {
				t.Errorf("processed %q before refusing the input", got)
			}
		}},
		{"requester left out", func(t *testing.T, f *batchFixture, file string) {
			in := f.items("in/norequester.json", abc, nil)
			delete(in, "requestedBy")
			f.failed(f.start(file, in), "InvalidInput", requesterMissing)
		}},
		{"items left out", func(t *testing.T, f *batchFixture, file string) {
			f.failed(f.start(file, map[string]any{"requestedBy": requester}), "InvalidInput",
				"The input has no itemsKey: the key, in the bucket "+batchBucket+", of a JSON array of the items to process.")
		}},
		{"items that are not there", func(t *testing.T, f *batchFixture, file string) {
			x := f.wait(f.start(file, map[string]any{"requestedBy": requester, "itemsKey": "in/missing.json"}))
			if x.Status != "FAILED" || x.Error != "States.ItemReaderFailed" || !strings.Contains(x.Cause, "Reading s3://"+batchBucket+"/in/missing.json: The specified key does not exist.") {
				t.Errorf("ended %s %s: %s", x.Status, x.Error, x.Cause)
			}
		}},
	}
	for _, v := range batchVariants {
		for _, tt := range tests {
			t.Run(v.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				tt.play(t, newBatchFixture(t), v.file)
			})
		}
	}
}

func (h *harness) getObject(key string) string {
	h.t.Helper()
	out, err := h.s3.GetObject(context.Background(), &awss3.GetObjectInput{Bucket: aws.String(batchBucket), Key: aws.String(key)})
	if err != nil {
		h.t.Fatalf("GetObject %s: %v", key, err)
	}
	defer out.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32*1024)
	for {
		n, err := out.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}
