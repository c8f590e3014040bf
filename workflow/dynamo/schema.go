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
)

// QueueIndex is the sparse global secondary index List queries: partition
// key queue, sort key queuedAt (workflow.Approval.QueuedAt, then the ID,
// then the amended mark: on the pending queue when the sweeper next has
// work on the approval, creation time on the claimed queue, the time the
// next message update is due on the message queue, the close on the audit
// queue). The AuditLog's records are on it too, under their own partition
// keys ("log#<day>", "user#<user>"). It projects only listedAttributes,
// never the task token.
const QueueIndex = "queue-index"

// ExecutionIndex is the sparse global secondary index ListOpen queries:
// partition key openExecution (the execution ARN, set only while the
// approval is open), sort key openedAt (creation time, then ID). It
// projects listedAttributes, never the task token.
const ExecutionIndex = "execution-index"

// listedAttributes are the attributes both indexes project besides the
// keys: those workflow.Approval.Listed keeps. A test checks that List
// returns exactly Listed.
var listedAttributes = []string{
	attrStatus, "executionArn", "stateName", "channel", "threadTs", "messageTs", "approvers",
	"requestedBy", "title", "createdAt", "deadline", "claimedAt", "closedAt", "decision", "messageSynced",
}

// TTLAttribute is the attribute DynamoDB's time to live deletes items by:
// epoch seconds after which the item may go.
const TTLAttribute = attrPurgeAt

// TableAPI is the part of the DynamoDB API CreateTable uses;
// *dynamodb.Client implements it.
type TableAPI interface {
	CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)
	UpdateTimeToLive(context.Context, *dynamodb.UpdateTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
}

// TableSchema is the table the Store needs, billed per request. Time to
// live on TTLAttribute is set separately (CreateTable does).
func TableSchema(table string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(attrID), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(attrQueue), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(attrQueuedAt), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(attrOpenExecution), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(attrOpenedAt), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(attrID), KeyType: types.KeyTypeHash},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			sparseIndex(QueueIndex, attrQueue, attrQueuedAt),
			sparseIndex(ExecutionIndex, attrOpenExecution, attrOpenedAt),
		},
	}
}

func sparseIndex(name, partition, sort string) types.GlobalSecondaryIndex {
	return types.GlobalSecondaryIndex{
		IndexName: aws.String(name),
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(partition), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(sort), KeyType: types.KeyTypeRange},
		},
		Projection: &types.Projection{
			ProjectionType:   types.ProjectionTypeInclude,
			NonKeyAttributes: slices.Clone(listedAttributes),
		},
	}
}

// CreateTable creates the table from TableSchema unless it exists, waits
// until it is active and makes sure time to live is enabled on
// TTLAttribute. It is idempotent. A table that exists without one of
// TableSchema's indexes, with an index of another key schema or
// projection (an index of an older version that projects the task token),
// or with time to live on another attribute, is an error.
func CreateTable(ctx context.Context, client TableAPI, table string) error {
	desc, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	var missing *types.ResourceNotFoundException
	var inUse *types.ResourceInUseException
	switch {
	case errors.As(err, &missing):
		if _, err := client.CreateTable(ctx, TableSchema(table)); err != nil && !errors.As(err, &inUse) {
			return fmt.Errorf("create table %s: %w", table, err)
		}
	case err != nil:
		return fmt.Errorf("describe table %s: %w", table, err)
	default:
		if err := checkIndexes(table, desc.Table.GlobalSecondaryIndexes); err != nil {
			return err
		}
	}
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = time.Second, 10*time.Second
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}, 5*time.Minute); err != nil {
		return fmt.Errorf("wait for table %s to become active: %w", table, err)
	}
	return enableTTL(ctx, client, table)
}

// checkIndexes reports the first index of TableSchema that the table
// lacks or has in another shape.
func checkIndexes(table string, have []types.GlobalSecondaryIndexDescription) error {
	for _, want := range TableSchema(table).GlobalSecondaryIndexes {
		name := aws.ToString(want.IndexName)
		i := slices.IndexFunc(have, func(d types.GlobalSecondaryIndexDescription) bool { return aws.ToString(d.IndexName) == name })
		if i < 0 {
			return fmt.Errorf("table %s exists without the index %s the approvals store needs", table, name)
		}
		got := have[i]
		if !sameKeys(want.KeySchema, got.KeySchema) || !sameProjection(want.Projection, got.Projection) {
			return fmt.Errorf("table %s has an index %s of another key schema or projection than the approvals store needs (see Upgrading in deploy/README.md)", table, name)
		}
	}
	return nil
}

func sameKeys(a, b []types.KeySchemaElement) bool {
	return slices.EqualFunc(a, b, func(x, y types.KeySchemaElement) bool {
		return aws.ToString(x.AttributeName) == aws.ToString(y.AttributeName) && x.KeyType == y.KeyType
	})
}

func sameProjection(a, b *types.Projection) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := slices.Clone(a.NonKeyAttributes), slices.Clone(b.NonKeyAttributes)
	slices.Sort(x)
	slices.Sort(y)
	return a.ProjectionType == b.ProjectionType && slices.Equal(x, y)
}

func enableTTL(ctx context.Context, client TableAPI, table string) error {
	out, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	if err != nil {
		return fmt.Errorf("describe time to live of table %s: %w", table, err)
	}
	if d := out.TimeToLiveDescription; d != nil &&
		(d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		if name := aws.ToString(d.AttributeName); name != TTLAttribute {
			return fmt.Errorf("table %s has time to live on %s, want %s", table, name, TTLAttribute)
		}
		return nil
	}
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(TTLAttribute),
			Enabled:       aws.Bool(true),
		},
	})
	if err != nil {
		return fmt.Errorf("enable time to live on %s of table %s: %w", TTLAttribute, table, err)
	}
	return nil
}
