package dynamo

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/sfnapprovals/approvals/workflow"
)

// callCounter counts every call a Store makes.
type callCounter struct {
	ItemAPI
	mu    sync.Mutex
	calls map[string]int
}

func (c *callCounter) count(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[op]++
}

func (c *callCounter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.count("GetItem")
	return c.ItemAPI.GetItem(ctx, in, o...)
}

func (c *callCounter) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.count("PutItem")
	return c.ItemAPI.PutItem(ctx, in, o...)
}

func (c *callCounter) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.count("Query")
	return c.ItemAPI.Query(ctx, in, o...)
}

func (c *callCounter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.count("TransactWriteItems")
	return c.ItemAPI.TransactWriteItems(ctx, in, o...)
}

// The events Lambda on DynamoDB: the ended execution's pending request is
// closed with its stop time kept, a claimed one is left to its resume, a
// repeated event changes nothing, and an execution without requests costs
// exactly one Query.
func TestCloseExecutionOnDynamoDB(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	const exec = "arn:aws:states:us-east-1:123456789012:execution:sm:run-ended"
	in := func(token string) workflow.Approval {
		a := newApproval(token, 0)
		a.ExecutionARN, a.StateName = exec, "Approve"
		a = create(t, s, a)
		if _, err := s.SetMessage(ctx, a.ID, "C0123", "1700000000.000100"); err != nil {
			t.Fatal(err)
		}
		return a
	}
	pending := in("token-ended-pending")
	claimed := in("token-ended-claimed")
	if _, err := s.Claim(ctx, claimed.ID, approve, t0); err != nil {
		t.Fatal(err)
	}
	counter := &callCounter{ItemAPI: client, calls: map[string]int{}}
	svc := workflow.NewService(New(counter, s.table), nil, nil)
	svc.Now = func() time.Time { return t0.Add(time.Hour) }
	stopped := t0.Add(time.Minute)
	x := workflow.Execution{ARN: exec, Status: workflow.ExecutionTimedOut, StoppedAt: stopped}

	closed, err := svc.CloseExecution(ctx, x)
	if err != nil || len(closed) != 1 || closed[0].ID != pending.ID {
		t.Fatalf("CloseExecution = %d closed, %v; want %s", len(closed), err, pending.ID)
	}
	stored, err := New(client, s.table).Get(ctx, pending.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := workflow.Cancellation{Reason: workflow.ReasonExecutionTimedOut, StoppedAt: stopped}
	if stored.Status != workflow.StatusCancelled || stored.Cancellation == nil || *stored.Cancellation != want ||
		!stored.ClosedAt.Equal(t0.Add(time.Hour)) || stored.Queue() != workflow.QueueMessage {
		t.Errorf("stored = %s %+v closed %v on %q; want cancelled %+v, on the message queue", stored.Status, stored.Cancellation, stored.ClosedAt, stored.Queue(), want)
	}
	if got, err := s.Get(ctx, claimed.ID); err != nil || got.Status != workflow.StatusClaimed {
		t.Errorf("the claimed request is %s, %v; want claimed", got.Status, err)
	}
	if again, err := svc.CloseExecution(ctx, x); err != nil || len(again) != 0 {
		t.Errorf("the repeated event closed %d, %v; want nothing", len(again), err)
	}

	counter.calls = map[string]int{}
	none := workflow.Execution{ARN: exec + "-none", Status: workflow.ExecutionSucceeded, StoppedAt: stopped}
	if closed, err := svc.CloseExecution(ctx, none); err != nil || len(closed) != 0 {
		t.Fatalf("CloseExecution without requests = %d, %v", len(closed), err)
	}
	if len(counter.calls) != 1 || counter.calls["Query"] != 1 {
		t.Errorf("an execution without requests cost %v, want one Query", counter.calls)
	}
}
