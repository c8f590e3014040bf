package auditstream

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/sfnapprovals/approvals/lambdas/archive"
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

	after     *big.Int           // records up to this sequence number are archived already
	iterators map[string]*string // by shard: where to read next
	last      map[string]string  // by shard: the last sequence number archived
	done      map[string]bool    // shards read to their end
}

// NewFollower returns a Follower of the stream streamARN.
func NewFollower(streams StreamsAPI, streamARN string, h *archive.Handler) *Follower {
	return &Follower{streams: streams, arn: streamARN, archive: h, iterators: map[string]*string{}, last: map[string]string{}, done: map[string]bool{}}
}

// After passes over the records up to sequence of stream, the last one an
// archive already holds: a follower started again goes on where the last
// one stopped, even if it stopped without catching up. Sequence numbers
// grow with time across a stream's shards. Another stream (the table made
// again), or a sequence that is not a number, is ignored: the archive may
// then repeat lines, never miss one.
func (f *Follower) After(stream, sequence string) {
	if n, ok := new(big.Int).SetString(sequence, 10); ok && stream == f.arn {
		f.after = n
	}
}

// archived reports whether the record with sequence is up to f.after.
func (f *Follower) archived(sequence string) bool {
	n, ok := new(big.Int).SetString(sequence, 10)
	return ok && f.after != nil && n.Cmp(f.after) <= 0
}

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
	return n, nil
}

func (f *Follower) catchUpShard(ctx context.Context, shard string) (int, error) {
	if f.iterators[shard] == nil {
		in := &dynamodbstreams.GetShardIteratorInput{
			StreamArn: aws.String(f.arn), ShardId: aws.String(shard), ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon,
		}
		if last, ok := f.last[shard]; ok {
			in.ShardIteratorType, in.SequenceNumber = streamtypes.ShardIteratorTypeAfterSequenceNumber, aws.String(last)
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
		records := slices.DeleteFunc(slices.Clone(out.Records), func(r streamtypes.Record) bool {
			return r.Dynamodb != nil && f.archived(aws.ToString(r.Dynamodb.SequenceNumber))
		})
		if len(records) > 0 {
			event, err := lambdaEvent(f.arn, records)
			if err != nil {
				return n, fmt.Errorf("shard %s: %w", shard, err)
			}
			if _, err := f.archive.Archive(event); err != nil {
				return n, fmt.Errorf("shard %s: archive %d records: %w", shard, len(records), err)
			}
			n += len(records)
		}
		if len(out.Records) > 0 && out.Records[len(out.Records)-1].Dynamodb != nil {
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

// lambdaEvent is the event Lambda invokes a function with for records of
// the stream streamARN.
func lambdaEvent(streamARN string, records []streamtypes.Record) (lambdaevents.DynamoDBEvent, error) {
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
