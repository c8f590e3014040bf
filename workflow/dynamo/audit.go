package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/workflow"
)

// AuditAPI is the part of the DynamoDB API the AuditLog uses;
// *dynamodb.Client implements it.
type AuditAPI interface {
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	BatchGetItem(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
}

// AuditLog is the workflow.AuditLog on the approvals table (TableSchema),
// beside the approvals:
//
//   - each event is an item of its own ("log#<approval>#<seq>"), on the
//     queue index under "log#<UTC day>" by time, so Export reads a time
//     range with one Query a day (no Scan);
//   - each person's latest act on an approval is one history item
//     ("hist#<user>#<approval>"), on the queue index under "user#<user>"
//     by time, so History reads a person's newest with one Query.
//
// The queue index projects none of their attributes, so both read the
// items found with BatchGetItem. Every item is kept Retention after its
// event (TTL), whatever happens to the approval's record, and none holds
// a task token. It is safe for concurrent use.
type AuditLog struct {
	client    AuditAPI
	table     string
	retention time.Duration
}

var _ workflow.AuditLog = (*AuditLog)(nil)

// NewAuditLog returns the AuditLog on the table, keeping each record for
// retention.
func NewAuditLog(client AuditAPI, table string, retention time.Duration) *AuditLog {
	return &AuditLog{client: client, table: table, retention: retention}
}

const (
	logPrefix     = "log#"
	historyPrefix = "hist#"
	userPrefix    = "user#"
	// Attributes of history items only: where the approval is.
	attrHistoryTitle   = "approvalTitle"
	attrHistoryChannel = "approvalChannel"
	attrHistoryTS      = "approvalMessageTs"
)

// Append implements workflow.AuditLog: one PutItem per event that only
// adds (attribute_not_exists: an audit record is never replaced, so
// writing an event again leaves the first record as it was), then one
// conditional PutItem per person who acted, which never replaces their
// history item with an older event.
func (l *AuditLog) Append(ctx context.Context, a workflow.Approval, events []workflow.AuditEvent) error {
	for _, e := range events {
		_, err := l.client.PutItem(ctx, addOnly(l.table, eventItem(e, l.retention)))
		var exists *types.ConditionalCheckFailedException
		if err != nil && !errors.As(err, &exists) {
			return fmt.Errorf("write audit event %d of approval %s: %w", e.Seq, a.ID, err)
		}
	}
	for _, act := range latestActs(events) {
		if err := l.putHistory(ctx, a, act); err != nil {
			return err
		}
	}
	return nil
}

// addOnly is the PutItem of an audit record: it adds the item, and fails
// (ConditionalCheckFailedException) where one with its key exists.
func addOnly(table string, item map[string]types.AttributeValue) *dynamodb.PutItemInput {
	return &dynamodb.PutItemInput{
		TableName: aws.String(table), Item: item,
		ConditionExpression: aws.String("attribute_not_exists(#id)"), ExpressionAttributeNames: map[string]string{"#id": attrID},
	}
}

// eventItem is the audit record of e, kept retention after it.
func eventItem(e workflow.AuditEvent, retention time.Duration) map[string]types.AttributeValue {
	item := encodeEvent(e)
	seq := fmt.Sprintf("%06d", e.Seq)
	item[attrID] = str(logPrefix + e.ApprovalID + "#" + seq)
	item[attrQueue] = str(logPrefix + e.At.UTC().Format(time.DateOnly))
	item[attrQueuedAt] = str(e.At.UTC().Format(sortableTime) + "#" + e.ApprovalID + "#" + seq)
	item[attrPurgeAt] = number(e.At.Add(retention).Unix())
	return item
}

// historyItem is e.Actor's history entry for a, their act e on it, kept
// retention after it.
func historyItem(a workflow.Approval, e workflow.AuditEvent, retention time.Duration) map[string]types.AttributeValue {
	item := encodeEvent(e)
	item[attrID] = str(historyPrefix + e.Actor + "#" + a.ID)
	item[attrQueue] = str(userPrefix + e.Actor)
	item[attrQueuedAt] = str(e.At.UTC().Format(sortableTime) + "#" + a.ID)
	item[attrPurgeAt] = number(e.At.Add(retention).Unix())
	putStrings(item, map[string]string{attrHistoryTitle: a.Title, attrHistoryChannel: a.Channel, attrHistoryTS: a.MessageTS})
	return item
}

// latestActs are the last PersonalAct of each person among events, in the
// order the people first acted.
func latestActs(events []workflow.AuditEvent) []workflow.AuditEvent {
	var acts []workflow.AuditEvent
	for _, e := range events {
		if !e.PersonalAct() {
			continue
		}
		if i := slices.IndexFunc(acts, func(x workflow.AuditEvent) bool { return x.Actor == e.Actor }); i >= 0 {
			acts[i] = e
			continue
		}
		acts = append(acts, e)
	}
	return acts
}

func (l *AuditLog) putHistory(ctx context.Context, a workflow.Approval, e workflow.AuditEvent) error {
	_, err := l.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                 aws.String(l.table),
		Item:                      historyItem(a, e, l.retention),
		ConditionExpression:       aws.String("attribute_not_exists(#id) OR #seq < :seq"),
		ExpressionAttributeNames:  map[string]string{"#id": attrID, "#seq": "seq"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":seq": number(int64(e.Seq))},
	})
	var newer *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &newer) {
		return fmt.Errorf("write the history of %s on approval %s: %w", e.Actor, a.ID, err)
	}
	return nil
}

// History implements workflow.AuditLog with one Query (newest first) and
// one BatchGetItem.
func (l *AuditLog) History(ctx context.Context, user string, limit int) ([]workflow.HistoryEntry, error) {
	out, err := l.client.Query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(l.table),
		IndexName:                 aws.String(QueueIndex),
		KeyConditionExpression:    aws.String("#queue = :queue"),
		ExpressionAttributeNames:  map[string]string{"#queue": attrQueue},
		ExpressionAttributeValues: map[string]types.AttributeValue{":queue": str(userPrefix + user)},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(int32(limit)),
	})
	if err != nil {
		return nil, fmt.Errorf("list the history of %s: %w", user, err)
	}
	items, err := l.read(ctx, out.Items)
	if err != nil {
		return nil, err
	}
	var h []workflow.HistoryEntry
	for _, item := range items {
		d := decoder{item: item}
		entry := workflow.HistoryEntry{Event: decodeEvent(&d), Title: d.str(attrHistoryTitle), Channel: d.str(attrHistoryChannel), MessageTS: d.str(attrHistoryTS)}
		if d.err != nil {
			return nil, fmt.Errorf("decode the history of %s: %w", user, d.err)
		}
		h = append(h, entry)
	}
	return h, nil
}

// Export implements workflow.AuditLog: per UTC day of the range, Queries
// of a page each, each page read with one BatchGetItem.
func (l *AuditLog) Export(ctx context.Context, since, until time.Time, fn func(workflow.AuditEvent) error) error {
	since, until = since.UTC(), until.UTC()
	for day := since.Truncate(24 * time.Hour); day.Before(until); day = day.Add(24 * time.Hour) {
		var start map[string]types.AttributeValue
		for {
			out, err := l.client.Query(ctx, &dynamodb.QueryInput{
				TableName:              aws.String(l.table),
				IndexName:              aws.String(QueueIndex),
				KeyConditionExpression: aws.String("#queue = :queue AND #at BETWEEN :since AND :until"),
				ExpressionAttributeNames: map[string]string{
					"#queue": attrQueue, "#at": attrQueuedAt,
				},
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":queue": str(logPrefix + day.Format(time.DateOnly)),
					// "<until>" sorts before every "<until>#…": until is left out.
					":since": str(since.Format(sortableTime)), ":until": str(until.Format(sortableTime)),
				},
				Limit:             aws.Int32(100),
				ExclusiveStartKey: start,
			})
			if err != nil {
				return fmt.Errorf("list the audit events of %s: %w", day.Format(time.DateOnly), err)
			}
			items, err := l.read(ctx, out.Items)
			if err != nil {
				return err
			}
			for _, item := range items {
				d := decoder{item: item}
				e := decodeEvent(&d)
				if d.err != nil {
					return fmt.Errorf("decode audit event %s: %w", d.str(attrID), d.err)
				}
				if err := fn(e); err != nil {
					return err
				}
			}
			if out.LastEvaluatedKey == nil {
				break
			}
			start = out.LastEvaluatedKey
		}
	}
	return nil
}

// read returns the whole items of the index items listed (at most 100),
// in their order, leaving out any deleted meanwhile.
func (l *AuditLog) read(ctx context.Context, listed []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
	if len(listed) == 0 {
		return nil, nil
	}
	keys := make([]map[string]types.AttributeValue, len(listed))
	for i, item := range listed {
		keys[i] = map[string]types.AttributeValue{attrID: item[attrID]}
	}
	got := map[string]map[string]types.AttributeValue{}
	request := map[string]types.KeysAndAttributes{l.table: {Keys: keys}}
	for attempt := 1; len(request) > 0; attempt++ {
		out, err := l.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: request})
		if err != nil {
			return nil, fmt.Errorf("read %d audit records: %w", len(keys), err)
		}
		for _, item := range out.Responses[l.table] {
			if id, ok := item[attrID].(*types.AttributeValueMemberS); ok {
				got[id.Value] = item
			}
		}
		request = out.UnprocessedKeys
		if len(request) > 0 {
			if attempt == createAttempts {
				return nil, fmt.Errorf("read %d audit records: DynamoDB left some unread after %d attempts", len(keys), attempt)
			}
			if err := backoff(ctx, attempt); err != nil {
				return nil, fmt.Errorf("read %d audit records: %w", len(keys), err)
			}
		}
	}
	var items []map[string]types.AttributeValue
	for _, k := range keys {
		if item, ok := got[k[attrID].(*types.AttributeValueMemberS).Value]; ok {
			items = append(items, item)
		}
	}
	return items, nil
}
