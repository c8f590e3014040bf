package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// counting counts the DynamoDB calls a Store makes.
// clock is a settable clock the replicas share.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// replicas are bot replicas on one table: each a Service on a Store of
// its own (its own version cache), sharing the tasks, the clock and the
// audit log.
type replicas struct {
	table   string
	svcs    []*workflow.Service
	resumer *workflowtest.Resumer
	audit   *AuditLog
	clock   *clock
}

func newReplicas(t *testing.T, n int) *replicas {
	t.Helper()
	first := newStore(t)
	r := &replicas{table: first.table, resumer: workflowtest.NewResumer(), clock: &clock{now: t0}}
	r.audit = NewAuditLog(client, first.table, workflow.DefaultAuditRetention)
	for i := range n {
		store := first
		if i > 0 {
			store = New(client, first.table)
		}
		svc := workflow.NewService(store, r.resumer, nil)
		svc.Now, svc.Audit = r.clock.Now, r.audit
		r.svcs = append(r.svcs, svc)
	}
	return r
}

// request stores a posted request with the policy edit applies, and
// opens its task.
func (r *replicas) request(t *testing.T, edit func(*workflow.Request)) workflow.Approval {
	t.Helper()
	token := fmt.Sprintf("token-%s-%d", t.Name(), time.Now().UnixNano())
	req := workflow.Request{
		TaskToken: workflow.TaskToken(token), ExecutionARN: "arn:aws:states:us-east-1:123456789012:execution:sm:" + fmt.Sprint(time.Now().UnixNano()),
		StateName: "Approve", Channel: "C0123", Approvers: []string{"U0ALICE", "U0BOB", "U0CAROL"}, RequestedBy: "U0REQ",
		Title: "Publish", Drafts: []string{"one", "two"}, TimeoutSeconds: 86400,
	}
	if edit != nil {
		edit(&req)
	}
	a, _, err := r.svcs[0].Request(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	r.resumer.Open(token)
	if a, err = r.svcs[0].RecordMessage(t.Context(), a.ID, "C0123", fmt.Sprintf("%d.000100", time.Now().UnixNano()/1e9)); err != nil {
		t.Fatal(err)
	}
	return a
}

// Two people approve at the same moment on two replicas, quorum 2: the
// execution is resumed once, with both approvals.
func TestQuorumOnTwoReplicasResumesOnce(t *testing.T) {
	t.Parallel()
	r := newReplicas(t, 2)
	for round := range 5 {
		a := r.request(t, func(req *workflow.Request) { q := int64(2); req.Quorum = &q })
		var wg sync.WaitGroup
		statuses := make([]workflow.Status, 2)
		for i, user := range []string{"U0ALICE", "U0BOB"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := r.svcs[i].Decide(context.Background(), a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, DecidedBy: user, Text: "ok " + user})
				if err != nil {
					t.Errorf("round %d, %s: %v", round, user, err)
				}
				statuses[i] = got.Status
			}()
		}
		wg.Wait()
		task, _ := r.resumer.Task(a.TaskToken.Reveal())
		if task.Results != 1 {
			t.Fatalf("round %d: the task was resumed %d times, want once", round, task.Results)
		}
		var out struct {
			DecidedBy string
			Approvals []struct{ UserID, At, Comment string }
		}
		if err := json.Unmarshal([]byte(task.Output), &out); err != nil {
			t.Fatal(err)
		}
		users := map[string]string{}
		for _, v := range out.Approvals {
			users[v.UserID] = v.Comment
		}
		if diff := cmp.Diff(map[string]string{"U0ALICE": "ok U0ALICE", "U0BOB": "ok U0BOB"}, users); diff != "" {
			t.Errorf("round %d: approvals (-want +got):\n%s", round, diff)
		}
		if !(statuses[0] == workflow.StatusDecided) && !(statuses[1] == workflow.StatusDecided) {
			t.Errorf("round %d: neither replica saw the decision it made: %v", round, statuses)
		}
	}
}

// Two replicas sweep at the same moments: each reminder, the escalation
// and the onDeadline decision are done once, on DynamoDB's conditional
// writes.
func TestStepsHappenOnceOnTwoReplicas(t *testing.T) {
	t.Parallel()
	r := newReplicas(t, 2)
	var list []workflow.Approval
	for range 3 {
		list = append(list, r.request(t, func(req *workflow.Request) {
			req.EscalateTo, req.OnDeadline, req.AllowSkip = []string{"U0BOSS"}, "skip", true
		}))
	}
	counts := map[string]int{}
	for _, after := range []time.Duration{time.Hour, 11 * time.Hour, time.Minute, 6 * time.Hour, 4 * time.Hour, time.Hour, 5*time.Hour + 58*time.Minute, time.Minute} {
		r.clock.advance(after)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, svc := range r.svcs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rep, err := svc.Recover(context.Background())
				if err != nil {
					t.Errorf("Recover: %v", err)
				}
				mu.Lock()
				defer mu.Unlock()
				counts["reminded"] += len(rep.Reminded)
				counts["escalated"] += len(rep.Escalated)
				counts["decided"] += len(rep.Decided)
				counts["failed"] += rep.Failed
			}()
		}
		wg.Wait()
	}
	want := map[string]int{"reminded": 2 * 3, "escalated": 3, "decided": 3, "failed": 0}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("steps done (-want +got):\n%s", diff)
	}
	for _, a := range list {
		task, _ := r.resumer.Task(a.TaskToken.Reveal())
		if task.Results != 1 || task.Output == "" {
			t.Errorf("task of %s: %+v, want one skip by the deadline", a.ID, task)
		}
	}
}

// The deadline work reads the approvals due and nothing else: one Query
// for the due list, one GetItem per due approval, whatever the number of
// open approvals.
func TestDeadlineWorkReadsOnlyTheApprovalsDue(t *testing.T) {
	t.Parallel()
	base := newStore(t)
	c, calls := countedClient()
	store := New(c, base.table)
	svc := workflow.NewService(store, workflowtest.NewResumer(), nil)
	now := t0
	svc.Now, svc.Audit = func() time.Time { return now }, NewAuditLog(client, base.table, time.Hour)
	for i := range 150 {
		a := newApproval(fmt.Sprintf("token-due-%d", i), time.Duration(i)*time.Second)
		a.Steps = []workflow.Step{{Kind: workflow.StepRemind, At: a.CreatedAt.Add(12 * time.Hour)}}
		a.AgeBucket = 1 // counted as over an hour old: no move due before a day
		create(t, base, a)
	}
	now = t0.Add(12*time.Hour + 2*time.Second) // three reminders due
	before := calls.Counts()
	rep, err := svc.Advance(t.Context())
	if err != nil || len(rep.Reminded) != 3 {
		t.Fatalf("Advance = %d reminded, %v; want 3", len(rep.Reminded), err)
	}
	// Each reminder is one write, which carries its audit event.
	if diff := cmp.Diff(map[string]int64{"Query": 1, "GetItem": 3, "TransactWriteItems": 3}, calls.Since(before)); diff != "" {
		t.Errorf("Advance's DynamoDB calls (-want +got):\n%s", diff)
	}
	before = calls.Counts()
	rep, err = svc.Advance(t.Context())
	if diff := cmp.Diff(map[string]int64{"Query": 1}, calls.Since(before)); err != nil || len(rep.Reminded) != 0 || diff != "" {
		t.Errorf("a second Advance = %d reminded, %v; want nothing due, with one Query (-want +got calls):\n%s", len(rep.Reminded), err, diff)
	}
}

// A listing carries the amended mark, so PendingFor reads a delegated
// request in full: the delegate sees it, the delegator does not.
func TestPendingForReadsAmendedApprovalsInFull(t *testing.T) {
	t.Parallel()
	r := newReplicas(t, 1)
	svc := r.svcs[0]
	ctx := t.Context()
	plain := r.request(t, nil)
	r.clock.advance(time.Second)
	handed := r.request(t, nil)
	if _, err := svc.Delegate(ctx, handed.ID, "U0ALICE", "U0DAVE", workflow.MessageRef{}); err != nil {
		t.Fatal(err)
	}
	listed, _, err := New(client, r.table).List(ctx, workflow.QueueOpen, "", time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	amended := map[string]bool{}
	for _, a := range listed {
		amended[a.ID] = a.Amended
	}
	if diff := cmp.Diff(map[string]bool{plain.ID: false, handed.ID: true}, amended); diff != "" {
		t.Errorf("Amended of the listed approvals (-want +got):\n%s", diff)
	}
	for user, want := range map[string][]string{"U0DAVE": {handed.ID}, "U0ALICE": {plain.ID}, "U0BOB": {plain.ID, handed.ID}} {
		list, err := svc.PendingFor(ctx, user, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range list {
			got = append(got, a.ID)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("PendingFor(%s) (-want +got):\n%s", user, diff)
		}
	}
}

// A pending record written before the deadline lifecycle existed is on
// the pending queue by its creation time, so it looks due: the first sweep
// moves it to its real due time, and later sweeps leave it alone.
func TestOldPendingRecordsMoveToTheirDueTime(t *testing.T) {
	t.Parallel()
	base := newStore(t)
	a := newApproval("token-old", 0)
	item := encode(a, 1)
	item[attrQueuedAt] = str(a.CreatedAt.UTC().Format(sortableTime) + "#" + a.ID)
	delete(item, "allowDelegation")
	if _, err := client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: &base.table, Item: item}); err != nil {
		t.Fatal(err)
	}
	c, calls := countedClient()
	svc := workflow.NewService(New(c, base.table), workflowtest.NewResumer(), nil)
	svc.Now = func() time.Time { return t0.Add(time.Hour) }
	if _, err := svc.Advance(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Moved with its decider entry, which a record of that version lacks.
	if diff := cmp.Diff(map[string]int64{"Query": 1, "GetItem": 1, "TransactWriteItems": 1}, calls.Counts()); diff != "" {
		t.Errorf("first sweep: want the record read and moved (-want +got calls):\n%s", diff)
	}
	stored, err := base.Get(t.Context(), a.ID)
	if err != nil || !stored.Policy.AllowDelegation || stored.Status != workflow.StatusPending {
		t.Errorf("the old record reads as %+v, %v; want pending, delegation allowed (the default)", stored.Policy, err)
	}
	before := calls.Counts()
	if _, err := svc.Advance(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int64{"Query": 1}, calls.Since(before)); diff != "" {
		t.Errorf("second sweep: want one Query, no read or write (-want +got calls):\n%s", diff)
	}
}

// Through a whole decision with its audit trail, the only item holding
// the task token is the open approval's, and no index holds it.
func TestAuditTrailNeverHoldsTheToken(t *testing.T) {
	t.Parallel()
	r := newReplicas(t, 1)
	svc := r.svcs[0]
	ctx := t.Context()
	decided := r.request(t, func(req *workflow.Request) { q := int64(2); req.Quorum = &q })
	open := r.request(t, nil)
	for _, user := range []string{"U0ALICE", "U0BOB"} {
		if _, err := svc.Decide(ctx, decided.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 0, DecidedBy: user, Text: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.MessageSynced(ctx, decided.ID); err != nil { // writes the decision's audit records
		t.Fatal(err)
	}
	logs, histories := 0, 0
	for _, item := range rawItems(t, New(client, r.table), "") {
		id := item[attrID].(*types.AttributeValueMemberS).Value
		switch {
		case strings.HasPrefix(id, logPrefix):
			logs++
		case strings.HasPrefix(id, historyPrefix):
			histories++
		}
		if itemHolds(item, decided.TaskToken.Reveal()) {
			t.Errorf("item %s holds the decided approval's token", id)
		}
		if itemHolds(item, open.TaskToken.Reveal()) && id != open.ID {
			t.Errorf("item %s holds the open approval's token", id)
		}
	}
	if want := 2 + 2 + 2 + 2; logs != want || histories != 2 {
		t.Errorf("%d audit records and %d history entries, want %d (requested and posted each, two votes, decided, resumed) and 2", logs, histories, want)
	}
	for _, index := range []string{QueueIndex, ExecutionIndex} {
		for _, item := range rawItems(t, New(client, r.table), index) {
			if itemHolds(item, open.TaskToken.Reveal()) {
				t.Errorf("index %s holds a task token", index)
			}
		}
	}
}
