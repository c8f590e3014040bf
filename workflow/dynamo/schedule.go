package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/workflow"
)

// The sweeper's bookkeeping beside the approvals, so that it reads only
// what is due:
//
//   - an execution check item ("exec#<execution ARN>") per execution to
//     check, on the queue index under "checks" by when its check is due;
//   - counter items ("open#<bucket>#<shard>") holding how many approvals
//     are open in each age bucket (workflow.AgeBounds). Each write that
//     opens, ages or closes an approval moves its count in the same
//     transaction, on a shard picked at random, so that writes at the
//     same moment rarely meet on one item (DynamoDB cancels a transaction
//     that meets another on an item: TransactionConflict, and the write
//     is tried again). The young bucket, which every request and decision
//     touches, has the most shards.

const (
	checkPrefix = "exec#"
	checksQueue = "checks"
	countPrefix = "open#"
	attrCount   = "n"
	// attrCounted is the approval item's record of the bucket it is
	// counted in, plus one; absent on items not counted (final, or
	// written by a version before the counts).
	attrCounted = "countedIn"
)

// countShards is the number of counter items of each age bucket: 64 for
// approvals under an hour old, 8 for each older bucket (88 items, read
// with one BatchGetItem).
var countShards = [len(workflow.AgeBounds) + 1]int{64, 8, 8, 8}

func countKey(bucket, shard int) map[string]types.AttributeValue {
	return key(countPrefix + strconv.Itoa(bucket) + "#" + strconv.Itoa(shard))
}

// countUpdate adds delta to a random shard of the bucket's count.
func (s *Store) countUpdate(bucket, delta int) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 aws.String(s.table),
		Key:                       countKey(bucket, rand.IntN(countShards[bucket])),
		UpdateExpression:          aws.String("ADD #n :d"),
		ExpressionAttributeNames:  map[string]string{"#n": attrCount},
		ExpressionAttributeValues: map[string]types.AttributeValue{":d": number(int64(delta))},
	}}
}

// counted is the bucket a is counted in when stored: its AgeBucket while
// it is open, -1 once it is final.
func counted(a workflow.Approval) int {
	if a.Status.Final() {
		return -1
	}
	return min(max(a.AgeBucket, 0), len(workflow.AgeBounds))
}

// countWrites are the counter updates of a write of a over before.
func (s *Store) countWrites(before record, a workflow.Approval) []types.TransactWriteItem {
	now := counted(a)
	if before.counted == now {
		return nil
	}
	var items []types.TransactWriteItem
	if before.counted >= 0 {
		items = append(items, s.countUpdate(before.counted, -1))
	}
	if now >= 0 {
		items = append(items, s.countUpdate(now, 1))
	}
	return items
}

// OpenCounts implements workflow.Store.OpenCounts with one BatchGetItem of
// the counter items.
func (s *Store) OpenCounts(ctx context.Context) ([]int, error) {
	var ids []string
	for b, n := range countShards {
		for shard := range n {
			ids = append(ids, countPrefix+strconv.Itoa(b)+"#"+strconv.Itoa(shard))
		}
	}
	items, err := s.batchGetConsistent(ctx, ids, false)
	if err != nil {
		return nil, fmt.Errorf("read the open approvals' counts: %w", err)
	}
	counts := make([]int, len(countShards))
	for id, item := range items {
		b, _, _ := strings.Cut(strings.TrimPrefix(id, countPrefix), "#")
		bucket, err := strconv.Atoi(b)
		if err != nil || bucket < 0 || bucket >= len(counts) {
			continue
		}
		d := decoder{item: item}
		counts[bucket] += int(d.int(attrCount))
		if d.err != nil {
			return nil, fmt.Errorf("read the open approvals' counts: %w", d.err)
		}
	}
	return counts, nil
}

func checkKey(arn string) map[string]types.AttributeValue { return key(checkPrefix + arn) }

func checkSortKey(arn string, at time.Time) string {
	return at.UTC().Format(sortableTime) + "#" + arn
}

// ScheduleCheck implements workflow.Store.ScheduleCheck with one
// conditional UpdateItem (a later schedule stays). The item goes a year
// after at, should nothing check it again.
func (s *Store) ScheduleCheck(ctx context.Context, arn string, at time.Time) error {
	k := checkSortKey(arn, at)
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       checkKey(arn),
		UpdateExpression:          aws.String("SET #q = :q, #at = :at, #purge = :purge"),
		ConditionExpression:       aws.String("attribute_not_exists(#at) OR #at < :at"),
		ExpressionAttributeNames:  map[string]string{"#q": attrQueue, "#at": attrQueuedAt, "#purge": attrPurgeAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{":q": str(checksQueue), ":at": str(k), ":purge": number(at.Add(366 * 24 * time.Hour).Unix())},
	})
	var later *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &later) {
		return fmt.Errorf("schedule the check of execution %s: %w", arn, err)
	}
	return nil
}

// ChecksDue implements workflow.Store.ChecksDue with one Query of up to
// limit+1 schedule entries, the earliest first.
func (s *Store) ChecksDue(ctx context.Context, now time.Time, limit int) ([]workflow.ScheduledCheck, time.Time, error) {
	out, err := s.client.Query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(QueueIndex),
		KeyConditionExpression:    aws.String("#q = :q"),
		ExpressionAttributeNames:  map[string]string{"#q": attrQueue},
		ExpressionAttributeValues: map[string]types.AttributeValue{":q": str(checksQueue)},
		Limit:                     aws.Int32(int32(limit + 1)),
	})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("list the execution checks due: %w", err)
	}
	var due []workflow.ScheduledCheck
	for _, item := range out.Items {
		d := decoder{item: item}
		at, arn, ok := strings.Cut(d.str(attrQueuedAt), "#")
		t, err := time.Parse(time.RFC3339Nano, at)
		if !ok || err != nil {
			continue
		}
		if t.After(now) || len(due) == limit {
			return due, t, nil
		}
		due = append(due, workflow.ScheduledCheck{ExecutionARN: arn, At: t})
	}
	return due, time.Time{}, nil
}

// ForgetCheck implements workflow.Store.ForgetCheck with one conditional
// DeleteItem.
func (s *Store) ForgetCheck(ctx context.Context, arn string, at time.Time) error {
	_, err := s.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 aws.String(s.table),
		Key:                       checkKey(arn),
		ConditionExpression:       aws.String("#at = :at"),
		ExpressionAttributeNames:  map[string]string{"#at": attrQueuedAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{":at": str(checkSortKey(arn, at))},
	})
	var moved *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &moved) {
		return fmt.Errorf("forget the check of execution %s: %w", arn, err)
	}
	return nil
}

// WritesAuditEvents marks the Store as a workflow.AuditingStore: every
// write carries the audit events of its change (see write.go).
func (*Store) WritesAuditEvents() {}

var _ workflow.AuditingStore = (*Store)(nil)

const (
	watchPrefix   = "watch#"
	watchingQueue = "watching"
)

// Watch implements workflow.Store.Watch with one PutItem of the user's
// watch item, on the queue index under "watching" by until; it goes at
// until.
func (s *Store) Watch(ctx context.Context, user string, until time.Time) error {
	_, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: map[string]types.AttributeValue{
		attrID:       str(watchPrefix + user),
		attrQueue:    str(watchingQueue),
		attrQueuedAt: str(until.UTC().Format(sortableTime) + "#" + user),
		attrPurgeAt:  number(until.Unix()),
	}})
	if err != nil {
		return fmt.Errorf("record that %s watches their work: %w", user, err)
	}
	return nil
}

// Watchers implements workflow.Store.Watchers with a Query of the watch
// items whose until is after now (one a person).
func (s *Store) Watchers(ctx context.Context, now time.Time) ([]string, error) {
	var users []string
	var start map[string]types.AttributeValue
	for {
		out, err := s.client.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(s.table),
			IndexName:                 aws.String(QueueIndex),
			KeyConditionExpression:    aws.String("#q = :q AND #at > :now"),
			ExpressionAttributeNames:  map[string]string{"#q": attrQueue, "#at": attrQueuedAt},
			ExpressionAttributeValues: map[string]types.AttributeValue{":q": str(watchingQueue), ":now": str(now.UTC().Format(sortableTime) + "$")},
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return nil, fmt.Errorf("list who watches their work: %w", err)
		}
		for _, item := range out.Items {
			d := decoder{item: item}
			if _, user, ok := strings.Cut(d.str(attrQueuedAt), "#"); ok {
				users = append(users, user)
			}
		}
		if out.LastEvaluatedKey == nil {
			return users, nil
		}
		start = out.LastEvaluatedKey
	}
}
