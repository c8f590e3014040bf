package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/workflow"
)

// List returns up to limit approvals on the queue, oldest first, by querying
// the sparse queue index. Each is workflow.Approval.Listed, what the index
// projects: no task token, no message body. Listed approvals are never
// remembered as the version to change (that would write them back without
// what they lack). The index is eventually consistent: an approval may
// show up shortly after it joined or left the queue, so callers act on
// listed approvals with the conditional methods. An unknown queue is
// EINVALID.
func (s *Store) List(ctx context.Context, q workflow.Queue, limit int) ([]workflow.Approval, error) {
	switch q {
	case workflow.QueuePending, workflow.QueueClaimed, workflow.QueueMessage:
	default:
		return nil, workflow.Errorf(workflow.EINVALID, "unknown queue %q", q)
	}
	var list []workflow.Approval
	var start map[string]types.AttributeValue
	for len(list) < limit {
		out, err := s.client.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(s.table),
			IndexName:                 aws.String(QueueIndex),
			KeyConditionExpression:    aws.String("#queue = :queue"),
			ExpressionAttributeNames:  map[string]string{"#queue": attrQueue},
			ExpressionAttributeValues: map[string]types.AttributeValue{":queue": str(string(q))},
			ScanIndexForward:          aws.Bool(true),
			Limit:                     aws.Int32(int32(min(s.pageSize, limit-len(list)))),
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return nil, fmt.Errorf("list %s approvals: %w", q, err)
		}
		for _, item := range out.Items {
			a, _, err := decode(item)
			if err != nil {
				return nil, fmt.Errorf("list %s approvals: %w", q, err)
			}
			list = append(list, a)
		}
		if out.LastEvaluatedKey == nil {
			break
		}
		start = out.LastEvaluatedKey
	}
	return list, nil
}
