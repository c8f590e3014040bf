package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/workflow"
)

// ListFor implements workflow.Store.ListFor from the decider entries (see
// write.go): one Query of each decider's entries (at once, a page of up
// to limit each), then the approvals found, whole, with one consistent
// BatchGetItem per 100. An approval whose entry the index still lists
// after it left pending is left out.
func (s *Store) ListFor(ctx context.Context, deciders []string, limit int) ([]workflow.Approval, error) {
	if limit < 1 || len(deciders) == 0 {
		return nil, nil
	}
	keys := make([][]string, len(deciders)) // sort keys: "<created>#<id>"
	errs := make([]error, len(deciders))
	var wg sync.WaitGroup
	for i, d := range deciders {
		wg.Go(func() { keys[i], errs[i] = s.entries(ctx, d, limit) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	all := slices.Compact(slices.Sorted(slices.Values(slices.Concat(keys...))))
	ids := make([]string, 0, min(len(all), limit))
	for _, k := range all[:min(len(all), limit)] {
		_, id, _ := strings.Cut(k, "#")
		ids = append(ids, id)
	}
	items, err := s.batchGetConsistent(ctx, ids, true)
	if err != nil {
		return nil, err
	}
	var list []workflow.Approval
	for _, id := range ids {
		item, ok := items[id]
		if !ok || !isApproval(item) {
			continue
		}
		a, _, err := decode(item)
		if err != nil {
			return nil, err
		}
		if a.Status == workflow.StatusPending {
			list = append(list, a)
		}
	}
	return list, nil
}

// ListRequestedBy implements workflow.Store.ListRequestedBy from the
// requester's entries (see write.go), as ListFor reads a decider's.
func (s *Store) ListRequestedBy(ctx context.Context, requester string, limit int) ([]workflow.Approval, error) {
	if requester == "" {
		return nil, workflow.Errorf(workflow.EINVALID, "no requester to list the requests of")
	}
	return s.ListFor(ctx, []string{requesterMark + requester}, limit)
}

// entries returns the sort keys of up to limit of decider's entries,
// oldest first.
func (s *Store) entries(ctx context.Context, decider string, limit int) ([]string, error) {
	var keys []string
	var start map[string]types.AttributeValue
	for len(keys) < limit {
		out, err := s.client.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(s.table),
			IndexName:                 aws.String(QueueIndex),
			KeyConditionExpression:    aws.String("#queue = :queue"),
			ExpressionAttributeNames:  map[string]string{"#queue": attrQueue},
			ExpressionAttributeValues: map[string]types.AttributeValue{":queue": str(deciderPrefix + decider)},
			Limit:                     aws.Int32(int32(min(limit-len(keys), 1000))),
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return nil, fmt.Errorf("list the approvals %s may decide: %w", decider, err)
		}
		for _, item := range out.Items {
			if k, ok := item[attrQueuedAt].(*types.AttributeValueMemberS); ok {
				keys = append(keys, k.Value)
			}
		}
		if out.LastEvaluatedKey == nil {
			break
		}
		start = out.LastEvaluatedKey
	}
	return keys, nil
}

// batchGetAttempts bounds the calls one BatchGetItem takes while DynamoDB
// leaves keys unprocessed (throttling).
const batchGetAttempts = 8

// batchGetConsistent reads the items with the IDs, 100 to a call, by ID;
// missing ones are left out.
func (s *Store) batchGetConsistent(ctx context.Context, ids []string, consistent bool) (map[string]map[string]types.AttributeValue, error) {
	got := make(map[string]map[string]types.AttributeValue, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 100)
		keys := make([]map[string]types.AttributeValue, n)
		for i, id := range ids[:n] {
			keys[i] = key(id)
		}
		ids = ids[n:]
		request := map[string]types.KeysAndAttributes{s.table: {Keys: keys, ConsistentRead: aws.Bool(consistent)}}
		for attempt := 1; len(request) > 0; attempt++ {
			out, err := s.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: request})
			if err != nil {
				return nil, fmt.Errorf("read %d items: %w", n, err)
			}
			for _, item := range out.Responses[s.table] {
				if id, ok := item[attrID].(*types.AttributeValueMemberS); ok {
					got[id.Value] = item
				}
			}
			request = out.UnprocessedKeys
			if len(request) == 0 {
				break
			}
			if attempt == batchGetAttempts {
				return nil, fmt.Errorf("read %d items: DynamoDB left some unread after %d attempts", n, attempt)
			}
			if err := backoff(ctx, attempt); err != nil {
				return nil, fmt.Errorf("read %d items: %w", n, err)
			}
		}
	}
	return got, nil
}

// DeciderGroups implements workflow.Store.DeciderGroups with one GetItem
// of the groups item (see write.go).
func (s *Store) DeciderGroups(ctx context.Context, now time.Time) ([]string, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: key(groupsID)})
	if err != nil {
		return nil, fmt.Errorf("read the user groups that may decide: %w", err)
	}
	var groups []string
	for name, v := range out.Item {
		g, ok := strings.CutPrefix(name, groupPrefix)
		n, isNumber := v.(*types.AttributeValueMemberN)
		if !ok || !isNumber {
			continue
		}
		until, err := strconv.ParseInt(n.Value, 10, 64)
		if err == nil && until > now.Unix() {
			groups = append(groups, g)
		}
	}
	slices.Sort(groups)
	return groups, nil
}

// migratedID is the item that records that Migrate ran on the table.
const migratedID = "migration#sweeper-index"

// legacyQueues are the queue index partitions whose items a version before
// the decider entries, the counts and the merged open queue wrote, and
// which Migrate rewrites: open approvals (without entries or counts, or
// claimed ones on their own queue then) and final ones whose audit events
// were left in their record.
var legacyQueues = []string{string(workflow.QueueOpen), "claimed", string(workflow.QueueAudit)}

// Migrate brings the records a version before this one stored up to it,
// once per table: every open approval gets its decider entries (so it
// shows in the lists of those who may decide it), its count and its place
// on the open queue (claimed ones had a queue of their own), its
// execution's check is scheduled, and the audit events left in final
// records are written. It reads those queues whole, a page at a time; an
// item records that it ran, and later calls cost one GetItem. Replicas
// running it at once write the same. It returns how many approvals it
// rewrote.
func (s *Store) Migrate(ctx context.Context) (int, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: key(migratedID), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return 0, fmt.Errorf("read whether the table was migrated: %w", err)
	}
	if out.Item != nil {
		return 0, nil
	}
	n := 0
	for _, q := range legacyQueues {
		var start map[string]types.AttributeValue
		for {
			page, last, err := s.query(ctx, QueueIndex, attrQueue, q, attrQueuedAt, "", start, s.pageSize)
			if err != nil {
				return n, fmt.Errorf("list the %s queue: %w", q, err)
			}
			for _, l := range page {
				done, err := s.migrate(ctx, l.ID, q)
				if err != nil {
					return n, err
				}
				if done {
					n++
				}
			}
			if last == "" {
				break
			}
			_, id, _ := strings.Cut(strings.TrimSuffix(last, amendedMark), "#")
			start = map[string]types.AttributeValue{attrID: str(id), attrQueue: str(q), attrQueuedAt: str(last)}
		}
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: map[string]types.AttributeValue{
		attrID: str(migratedID), "migratedAt": str(time.Now().UTC().Format(time.RFC3339)), "approvals": number(int64(n)),
	}})
	if err != nil {
		return n, fmt.Errorf("record that the table was migrated: %w", err)
	}
	return n, nil
}

// migrate rewrites the approval with the ID, listed on queue q, if a
// version before this one wrote it, and reports whether it did.
func (s *Store) migrate(ctx context.Context, id, q string) (bool, error) {
	r, err := s.get(ctx, id)
	switch {
	case workflow.ErrorCode(err) == workflow.ENOTFOUND:
		return false, nil
	case err != nil:
		return false, err
	}
	open := !r.a.Status.Final()
	if open && checkable(r.a.ExecutionARN) {
		if err := s.ScheduleCheck(ctx, r.a.ExecutionARN, r.a.CreatedAt.Add(workflow.DefaultExecutionChecks.After)); err != nil {
			return false, err
		}
	}
	// Every open record this version writes is counted.
	stale := open && (r.counted < 0 || q == "claimed") || len(r.a.AuditOutbox) > 0 && !deferred(r, r.a)
	if !stale {
		return false, nil
	}
	// The approval unchanged, written again with what goes with it.
	_, err = s.modify(ctx, id, "migrate", func(*workflow.Approval) error { return nil })
	if err != nil && workflow.ErrorCode(err) != workflow.ENOTFOUND {
		return false, err
	}
	return err == nil, nil
}

// checkable reports whether executions like arn's are checked: standard
// ones (DescribeExecution does not know Express executions).
func checkable(arn string) bool {
	return arn != "" && !strings.Contains(arn, ":express:")
}
