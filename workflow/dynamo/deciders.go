package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math"
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
	items, err := s.batchGet(ctx, ids)
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

// batchGet reads the approvals with the IDs, consistently, 100 to a call,
// by ID; missing ones are left out.
func (s *Store) batchGet(ctx context.Context, ids []string) (map[string]map[string]types.AttributeValue, error) {
	got := make(map[string]map[string]types.AttributeValue, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 100)
		keys := make([]map[string]types.AttributeValue, n)
		for i, id := range ids[:n] {
			keys[i] = key(id)
		}
		ids = ids[n:]
		request := map[string]types.KeysAndAttributes{s.table: {Keys: keys, ConsistentRead: aws.Bool(true)}}
		for attempt := 1; len(request) > 0; attempt++ {
			out, err := s.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: request})
			if err != nil {
				return nil, fmt.Errorf("read %d approvals: %w", n, err)
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
				return nil, fmt.Errorf("read %d approvals: DynamoDB left some unread after %d attempts", n, attempt)
			}
			if err := backoff(ctx, attempt); err != nil {
				return nil, fmt.Errorf("read %d approvals: %w", n, err)
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

// indexedID is the item that records that IndexDeciders ran on the table.
const indexedID = "migration#decider-entries"

// IndexDeciders writes the decider entries of the pending approvals that
// a version before them stored without any, so that each shows in the
// lists of those who may decide it (ListFor). It reads the pending queue
// whole, a page at a time, once per table: an item records that it ran,
// and later calls cost one GetItem. Replicas running it at once write the
// same entries. It returns how many approvals it indexed.
func (s *Store) IndexDeciders(ctx context.Context) (int, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: key(indexedID), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return 0, fmt.Errorf("read whether the decider entries were written: %w", err)
	}
	if out.Item != nil {
		return 0, nil
	}
	pending, err := s.List(ctx, workflow.QueuePending, time.Time{}, math.MaxInt32)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, l := range pending {
		r, err := s.get(ctx, l.ID)
		switch {
		case workflow.ErrorCode(err) == workflow.ENOTFOUND:
			continue
		case err != nil:
			return n, err
		case r.entries != nil || r.a.Status != workflow.StatusPending:
			continue
		}
		// An unchanged approval written again gets its entries.
		if _, err := s.modify(ctx, l.ID, "index the deciders of", func(a *workflow.Approval) error {
			if a.Status != workflow.StatusPending {
				return workflow.ErrUnchanged
			}
			return nil
		}); err != nil && workflow.ErrorCode(err) != workflow.ENOTFOUND {
			return n, err
		}
		n++
	}
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: map[string]types.AttributeValue{
		attrID: str(indexedID), "indexedAt": str(time.Now().UTC().Format(time.RFC3339)), "approvals": number(int64(n)),
	}})
	if err != nil {
		return n, fmt.Errorf("record that the decider entries were written: %w", err)
	}
	return n, nil
}
