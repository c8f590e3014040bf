package dynamo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/workflow"
)

// List returns up to limit approvals on the queue whose QueuedAt is not
// after until (zero: any), by QueuedAt, by querying the sparse queue index
// (whose sort key is QueuedAt, then the ID, then the amended mark). Each is
// workflow.Approval.Listed, what the index projects: no task token, no
// message body, Amended from the mark. Listed approvals are never
// remembered as the version to change (that would write them back without
// what they lack). The index is eventually consistent: an approval may
// show up shortly after it joined or left the queue, so callers act on
// listed approvals with the conditional methods. An unknown queue is
// EINVALID.
//
// The cursor is the sort key of the last approval listed; the next page
// starts after it (ExclusiveStartKey).
func (s *Store) List(ctx context.Context, q workflow.Queue, after workflow.Cursor, until time.Time, limit int) ([]workflow.Approval, workflow.Cursor, error) {
	switch q {
	case workflow.QueueOpen, workflow.QueueMessage, workflow.QueueAudit:
	default:
		return nil, "", workflow.Errorf(workflow.EINVALID, "unknown queue %q", q)
	}
	before := ""
	if !until.IsZero() {
		before = until.UTC().Format(sortableTime) + "$" // after every "<until>#<id>"
	}
	var start map[string]types.AttributeValue
	if after != "" {
		_, id, ok := strings.Cut(strings.TrimSuffix(string(after), amendedMark), "#")
		if !ok {
			return nil, "", workflow.Errorf(workflow.EINVALID, "not a cursor of this store: %q", after)
		}
		start = map[string]types.AttributeValue{attrID: str(id), attrQueue: str(string(q)), attrQueuedAt: str(string(after))}
	}
	list, next, err := s.query(ctx, QueueIndex, attrQueue, string(q), attrQueuedAt, before, start, limit)
	if err != nil {
		return nil, "", fmt.Errorf("list %s approvals: %w", q, err)
	}
	return list, workflow.Cursor(next), nil
}

// ListOpen returns up to limit open approvals of the execution, oldest
// first, by querying the sparse execution index: one Query for an
// execution with no open approval. Each is workflow.Approval.Listed. Like
// List, it is eventually consistent.
func (s *Store) ListOpen(ctx context.Context, executionARN string, limit int) ([]workflow.Approval, error) {
	if executionARN == "" {
		return nil, workflow.Errorf(workflow.EINVALID, "no execution to list the open approvals of")
	}
	list, _, err := s.query(ctx, ExecutionIndex, attrOpenExecution, executionARN, attrOpenedAt, "", nil, limit)
	if err != nil {
		return nil, fmt.Errorf("list the open approvals of execution %s: %w", executionARN, err)
	}
	return list, nil
}

// query pages through the index partition whose key attribute is value,
// in sort key order from start (nil: the first), for up to limit
// approvals; with before set, only sort keys below it. It returns the
// sort key of the last approval when more may follow, else "".
func (s *Store) query(ctx context.Context, index, attr, value, sortAttr, before string, start map[string]types.AttributeValue, limit int) ([]workflow.Approval, string, error) {
	cond := "#key = :key"
	names := map[string]string{"#key": attr}
	values := map[string]types.AttributeValue{":key": str(value)}
	if before != "" {
		cond += " AND #sort < :before"
		names["#sort"], values[":before"] = sortAttr, str(before)
	}
	var list []workflow.Approval
	last := ""
	for len(list) < limit {
		out, err := s.client.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(s.table),
			IndexName:                 aws.String(index),
			KeyConditionExpression:    aws.String(cond),
			ExpressionAttributeNames:  names,
			ExpressionAttributeValues: values,
			ScanIndexForward:          aws.Bool(true),
			Limit:                     aws.Int32(int32(min(s.pageSize, limit-len(list)))),
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return nil, "", err
		}
		for _, item := range out.Items {
			a, _, err := decode(item)
			if err != nil {
				return nil, "", err
			}
			listed := a.Listed()
			listed.Amended = amended(item, sortAttr)
			list = append(list, listed)
			if k, ok := item[sortAttr].(*types.AttributeValueMemberS); ok {
				last = k.Value
			}
		}
		if out.LastEvaluatedKey == nil {
			return list, "", nil
		}
		start = out.LastEvaluatedKey
	}
	return list, last, nil
}
