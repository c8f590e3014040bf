package auditstream

import (
	"context"
	"errors"
	"fmt"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/sfnapprovals/approvals/lambdas/archive"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
)

// StreamsAPI is the part of the DynamoDB Streams API Follow uses;
// *dynamodbstreams.Client implements it.
type StreamsAPI interface {
	DescribeStream(context.Context, *dynamodbstreams.DescribeStreamInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(context.Context, *dynamodbstreams.GetShardIteratorInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(context.Context, *dynamodbstreams.GetRecordsInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

// Follower feeds a table's stream to the archive as the deployed event
// source mapping does: every shard from its oldest record, in order, each
// page of records one batch, a batch the archive fails retried. Where the
// stack runs, Lambda does this; Follower is for the local stack. It is not
// safe for concurrent use.
type Follower struct {
	streams StreamsAPI
	arn     string
	archive *archive.Handler

	latest    bool               // the first catch-up starts at the newest record
	caughtUp  bool               // a catch-up has run
	iterators map[string]*string // by shard: where to read next
	last      map[string]string  // by shard: the last sequence number archived
	done      map[string]bool    // shards read to their end
}

// NewFollower returns a Follower of the stream streamARN.
func NewFollower(streams StreamsAPI, streamARN string, h *archive.Handler) *Follower {
	return &Follower{streams: streams, arn: streamARN, archive: h, iterators: map[string]*string{}, last: map[string]string{}, done: map[string]bool{}}
}

// StartAtLatest makes the first catch-up archive only records written after
// it, in the shards the stream has then (newer shards are read from their
// start): for an archive that already holds what came before.
func (f *Follower) StartAtLatest() { f.latest = true }

// Run calls CatchUp every poll until ctx ends; a failed catch-up is
// tried again at the next poll, from where it stopped. It returns
// ctx.Err(); report gets each failure.
func (f *Follower) Run(ctx context.Context, poll time.Duration, report func(error)) error {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if _, err := f.CatchUp(ctx); err != nil && ctx.Err() == nil {
			report(err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// CatchUp archives every record the stream holds that it has not archived
// yet, and returns how many records it passed on.
func (f *Follower) CatchUp(ctx context.Context) (int, error) {
	desc, err := f.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(f.arn)})
	if err != nil {
		return 0, fmt.Errorf("describe stream: %w", err)
	}
	n := 0
	for _, shard := range desc.StreamDescription.Shards {
		id := aws.ToString(shard.ShardId)
		if f.done[id] {
			continue
		}
		got, err := f.catchUpShard(ctx, id)
		n += got
		if err != nil {
			return n, err
		}
	}
	f.caughtUp = true
	return n, nil
}

func (f *Follower) catchUpShard(ctx context.Context, shard string) (int, error) {
	if f.iterators[shard] == nil {
		in := &dynamodbstreams.GetShardIteratorInput{
			StreamArn: aws.String(f.arn), ShardId: aws.String(shard), ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon,
		}
		if last, ok := f.last[shard]; ok {
			in.ShardIteratorType, in.SequenceNumber = streamtypes.ShardIteratorTypeAfterSequenceNumber, aws.String(last)
		} else if f.latest && !f.caughtUp {
			in.ShardIteratorType = streamtypes.ShardIteratorTypeLatest
		}
		it, err := f.streams.GetShardIterator(ctx, in)
		if err != nil {
			return 0, fmt.Errorf("shard %s: get iterator: %w", shard, err)
		}
		f.iterators[shard] = it.ShardIterator
	}
	n := 0
	for {
		out, err := f.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: f.iterators[shard]})
		if err != nil {
			var expired *streamtypes.ExpiredIteratorException
			if errors.As(err, &expired) {
				delete(f.iterators, shard) // the next catch-up reads on after the last record archived
			}
			return n, fmt.Errorf("shard %s: get records: %w", shard, err)
		}
		if len(out.Records) > 0 {
			event, err := LambdaEvent(f.arn, out.Records)
			if err != nil {
				return n, fmt.Errorf("shard %s: %w", shard, err)
			}
			if _, err := f.archive.Archive(event); err != nil {
				return n, fmt.Errorf("shard %s: archive %d records: %w", shard, len(out.Records), err)
			}
			n += len(out.Records)
			f.last[shard] = aws.ToString(out.Records[len(out.Records)-1].Dynamodb.SequenceNumber)
		}
		f.iterators[shard] = out.NextShardIterator
		if out.NextShardIterator == nil {
			f.done[shard] = true
			return n, nil
		}
		if len(out.Records) == 0 {
			return n, nil
		}
	}
}

// LambdaEvent is the event Lambda invokes a function with for records of
// the stream streamARN.
func LambdaEvent(streamARN string, records []streamtypes.Record) (lambdaevents.DynamoDBEvent, error) {
	event := lambdaevents.DynamoDBEvent{Records: make([]lambdaevents.DynamoDBEventRecord, 0, len(records))}
	for _, r := range records {
		if r.Dynamodb == nil {
			return lambdaevents.DynamoDBEvent{}, fmt.Errorf("stream record %s has no change", aws.ToString(r.EventID))
		}
		c := r.Dynamodb
		rec := lambdaevents.DynamoDBEventRecord{
			AWSRegion: aws.ToString(r.AwsRegion), EventID: aws.ToString(r.EventID), EventName: string(r.EventName),
			EventSource: aws.ToString(r.EventSource), EventVersion: aws.ToString(r.EventVersion), EventSourceArn: streamARN,
			Change: lambdaevents.DynamoDBStreamRecord{
				SequenceNumber: aws.ToString(c.SequenceNumber), SizeBytes: aws.ToInt64(c.SizeBytes), StreamViewType: string(c.StreamViewType),
			},
		}
		if c.ApproximateCreationDateTime != nil {
			rec.Change.ApproximateCreationDateTime = lambdaevents.SecondsEpochTime{Time: *c.ApproximateCreationDateTime}
		}
		var err error
		for _, img := range []struct {
			from map[string]streamtypes.AttributeValue
			to   *map[string]lambdaevents.DynamoDBAttributeValue
		}{{c.Keys, &rec.Change.Keys}, {c.NewImage, &rec.Change.NewImage}, {c.OldImage, &rec.Change.OldImage}} {
			if img.from == nil {
				continue
			}
			if *img.to, err = fromStreamItem(img.from); err != nil {
				return lambdaevents.DynamoDBEvent{}, fmt.Errorf("stream record %s: %w", rec.EventID, err)
			}
		}
		if r.UserIdentity != nil {
			rec.UserIdentity = &lambdaevents.DynamoDBUserIdentity{Type: aws.ToString(r.UserIdentity.Type), PrincipalID: aws.ToString(r.UserIdentity.PrincipalId)}
		}
		event.Records = append(event.Records, rec)
	}
	return event, nil
}

func fromStreamItem(item map[string]streamtypes.AttributeValue) (map[string]lambdaevents.DynamoDBAttributeValue, error) {
	out := make(map[string]lambdaevents.DynamoDBAttributeValue, len(item))
	for name, v := range item {
		av, err := fromStreamValue(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		out[name] = av
	}
	return out, nil
}

func fromStreamValue(v streamtypes.AttributeValue) (lambdaevents.DynamoDBAttributeValue, error) {
	switch v := v.(type) {
	case *streamtypes.AttributeValueMemberS:
		return lambdaevents.NewStringAttribute(v.Value), nil
	case *streamtypes.AttributeValueMemberN:
		return lambdaevents.NewNumberAttribute(v.Value), nil
	case *streamtypes.AttributeValueMemberB:
		return lambdaevents.NewBinaryAttribute(v.Value), nil
	case *streamtypes.AttributeValueMemberBOOL:
		return lambdaevents.NewBooleanAttribute(v.Value), nil
	case *streamtypes.AttributeValueMemberNULL:
		return lambdaevents.NewNullAttribute(), nil
	case *streamtypes.AttributeValueMemberSS:
		return lambdaevents.NewStringSetAttribute(v.Value), nil
	case *streamtypes.AttributeValueMemberNS:
		return lambdaevents.NewNumberSetAttribute(v.Value), nil
	case *streamtypes.AttributeValueMemberBS:
		return lambdaevents.NewBinarySetAttribute(v.Value), nil
	case *streamtypes.AttributeValueMemberL:
		list := make([]lambdaevents.DynamoDBAttributeValue, 0, len(v.Value))
		for i, e := range v.Value {
			av, err := fromStreamValue(e)
			if err != nil {
				return lambdaevents.DynamoDBAttributeValue{}, fmt.Errorf("element %d: %w", i, err)
			}
			list = append(list, av)
		}
		return lambdaevents.NewListAttribute(list), nil
	case *streamtypes.AttributeValueMemberM:
		m, err := fromStreamItem(v.Value)
		if err != nil {
			return lambdaevents.DynamoDBAttributeValue{}, err
		}
		return lambdaevents.NewMapAttribute(m), nil
	}
	return lambdaevents.DynamoDBAttributeValue{}, fmt.Errorf("attribute value of unknown type %T", v)
}

// TableAPI is the part of the DynamoDB API CreateTable uses;
// *dynamodb.Client implements it.
type TableAPI interface {
	dynamo.TableAPI
	UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
}

// CreateTable creates the approvals table as deployed, with the stream the
// archive reads (dynamo.AuditStream), unless it exists, turns the stream
// on for a table that exists without it, and returns the stream's ARN.
func CreateTable(ctx context.Context, client TableAPI, table string) (string, error) {
	in := dynamo.TableSchema(table)
	in.StreamSpecification = dynamo.AuditStream()
	var inUse *types.ResourceInUseException
	if _, err := client.CreateTable(ctx, in); err != nil && !errors.As(err, &inUse) {
		return "", fmt.Errorf("create table %s: %w", table, err)
	}
	if err := dynamo.CreateTable(ctx, client, table); err != nil {
		return "", err
	}
	desc, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return "", fmt.Errorf("describe table %s: %w", table, err)
	}
	if spec := desc.Table.StreamSpecification; spec != nil && aws.ToBool(spec.StreamEnabled) {
		if spec.StreamViewType != types.StreamViewTypeNewAndOldImages {
			return "", fmt.Errorf("table %s streams %s; the audit archive needs %s", table, spec.StreamViewType, types.StreamViewTypeNewAndOldImages)
		}
		return aws.ToString(desc.Table.LatestStreamArn), nil
	}
	up, err := client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), StreamSpecification: dynamo.AuditStream()})
	if err != nil {
		return "", fmt.Errorf("turn on the stream of table %s: %w", table, err)
	}
	arn := aws.ToString(up.TableDescription.LatestStreamArn)
	if arn == "" {
		return "", fmt.Errorf("table %s has no stream after turning it on", table)
	}
	return arn, nil
}
