package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/workflow"
)

// createAttempts bounds retries of a Create whose transaction collides with
// another Create for the same task token still in flight.
const createAttempts = 8

// Create stores a pending approval and a guard item keyed by a hash of its
// task token, in one transaction with the approval's audit records,
// decider entries and count (see write.go, schedule.go). If the guard exists, an approval for the
// token was stored before: Create returns that one and created=false. An
// approval that is not pending, or lacks an ID or token, is EINVALID.
func (s *Store) Create(ctx context.Context, a workflow.Approval) (stored workflow.Approval, created bool, err error) {
	if a.ID == "" || a.TaskToken == "" || a.Status != workflow.StatusPending {
		return workflow.Approval{}, false, workflow.Errorf(workflow.EINVALID, "a new approval needs an ID, a task token and status pending")
	}
	// The user groups are marked beside the write (see markGroups).
	marked := make(chan error, 1)
	go func() { marked <- s.markGroups(ctx, newGroups(record{counted: -1}, a), openUntil(a)) }()
	stored, created, err = s.create(ctx, a)
	if merr := <-marked; err == nil && merr != nil {
		return workflow.Approval{}, false, fmt.Errorf("store approval %s: %w", a.ID, merr)
	}
	return stored, created, err
}

// create is Create's transaction.
func (s *Store) create(ctx context.Context, a workflow.Approval) (workflow.Approval, bool, error) {
	guard := guardID(a.TaskToken)
	for attempt := 1; ; attempt++ {
		// Built again for each attempt: the count's shard is picked anew.
		rec, side := s.sideWrites(record{counted: -1}, a, maxTransactItems-2)
		item := recordItem(rec)
		guardItem := map[string]types.AttributeValue{attrID: str(guard), attrApprovalID: str(a.ID)}
		if v, ok := item[attrPurgeAt]; ok {
			guardItem[attrPurgeAt] = v
		}
		_, err := s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: append([]types.TransactWriteItem{
			{Put: s.putNew(item)},
			{Put: s.putNew(guardItem)},
		}, side...)})
		var canceled *types.TransactionCanceledException
		switch {
		case err == nil:
			s.versions.put(rec)
			return rec.a, true, nil
		case !errors.As(err, &canceled):
			return workflow.Approval{}, false, fmt.Errorf("store approval %s: %w", a.ID, err)
		case reason(canceled, 1) == "ConditionalCheckFailed":
			existing, err := s.byGuard(ctx, guard)
			return existing, false, err
		case reason(canceled, 0) == "ConditionalCheckFailed":
			return workflow.Approval{}, false, workflow.Errorf(workflow.ECONFLICT, "approval ID %s is already taken", a.ID)
		case attempt == createAttempts:
			return workflow.Approval{}, false, fmt.Errorf("store approval %s: gave up after %d attempts: %w", a.ID, attempt, err)
		}
		if err := backoff(ctx, attempt); err != nil {
			return workflow.Approval{}, false, fmt.Errorf("store approval %s: %w", a.ID, err)
		}
	}
}

func (s *Store) putNew(item map[string]types.AttributeValue) *types.Put {
	return &types.Put{
		TableName:                aws.String(s.table),
		Item:                     item,
		ConditionExpression:      aws.String("attribute_not_exists(#id)"),
		ExpressionAttributeNames: map[string]string{"#id": attrID},
	}
}

// byGuard returns the approval a token guard points to.
func (s *Store) byGuard(ctx context.Context, guard string) (workflow.Approval, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            key(guard),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return workflow.Approval{}, fmt.Errorf("read the approval stored earlier for the task token: %w", err)
	}
	d := decoder{item: out.Item}
	id := d.str(attrApprovalID)
	if d.err != nil || id == "" {
		return workflow.Approval{}, fmt.Errorf("read the approval stored earlier for the task token: guard item has no approval ID")
	}
	a, err := s.Get(ctx, id)
	if err != nil {
		return workflow.Approval{}, fmt.Errorf("read the approval stored earlier for the task token: %w", err)
	}
	return a, nil
}

// reason is the cancellation reason code of the i-th item of a transaction.
func reason(e *types.TransactionCanceledException, i int) string {
	if i >= len(e.CancellationReasons) {
		return ""
	}
	return aws.ToString(e.CancellationReasons[i].Code)
}

// backoff waits a jittered, growing delay before a retry.
func backoff(ctx context.Context, attempt int) error {
	d := time.Duration(attempt) * 10 * time.Millisecond
	t := time.NewTimer(d/2 + rand.N(d))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
