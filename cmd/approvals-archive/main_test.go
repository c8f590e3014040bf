package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/internal/lambdaruntime"
	"github.com/sfnapprovals/approvals/internal/lambdatest"
	"github.com/sfnapprovals/approvals/lambdas/archive"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// Shared by every test: the binary, built once, and one DynamoDB Local
// (each test gets its own table).
var harness lambdatest.Harness

func TestMain(m *testing.M) { os.Exit(lambdatest.Main(m, "approvals-archive", &harness)) }

// The product writes an approval's audit trail; then somebody with the
// roles' table permissions overwrites one record, updates another and
// deletes a third. The archive, fed the table's stream as Lambda feeds it,
// still holds the whole trail as first written, and shows each change with
// the record before and after.
func TestArchiveKeepsTheTrailWhateverTheTableLoses(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	table := streamedTable(t)
	resumer := workflowtest.NewResumer()
	svc := workflow.NewService(dynamo.New(harness.Admin, table), resumer, nil)
	token := "AQCEAAAAKgAAAAMAAAAAAAAAA" + randomHex(60)
	a, _, err := svc.Request(ctx, workflow.Request{
		TaskToken: workflow.TaskToken(token), ExecutionARN: "arn:aws:states:us-east-1:123456789012:execution:publish:" + randomHex(4),
		StateName: "Approve", Channel: "C0123ABCD", Approvers: []string{"U0ALICE"}, Title: "Publish the post",
		Drafts: []string{"first", "second"},
	})
	if err != nil {
		t.Fatal(err)
	}
	resumer.Open(token)
	if _, err := svc.RecordMessage(ctx, a.ID, "C0123ABCD", "1764000000.000100"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, DecidedBy: "U0ALICE", Text: "ship it"}); err != nil {
		t.Fatal(err)
	}
	if err := svc.MessageSynced(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	trail := exportTrail(t, table, a.ID)
	if len(trail) < 4 {
		t.Fatalf("the approval's trail has %d events: %+v", len(trail), trail)
	}
	decided, requested, last := findEvent(t, trail, workflow.EventDecided), trail[0], trail[len(trail)-1]

	// What a role's PutItem, UpdateItem and DeleteItem can do to the table.
	key := func(e workflow.AuditEvent) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: fmt.Sprintf("%s%s#%06d", dynamo.AuditRecordPrefix, e.ApprovalID, e.Seq)}}
	}
	got, err := harness.Admin.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key(decided)})
	if err != nil || got.Item == nil {
		t.Fatalf("read the decided record: %v", err)
	}
	got.Item["actor"] = &types.AttributeValueMemberS{Value: "U0MALLORY"}
	got.Item["action"] = &types.AttributeValueMemberS{Value: string(workflow.ActionReject)}
	if _, err := harness.Admin.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: got.Item}); err != nil {
		t.Fatal(err)
	}
	if _, err := harness.Admin.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(table), Key: key(requested), UpdateExpression: aws.String("SET title = :t"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: "Something else"}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := harness.Admin.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key(last)}); err != nil {
		t.Fatal(err)
	}
	if tampered := exportTrail(t, table, a.ID); cmp.Equal(trail, tampered) {
		t.Fatal("the table's trail did not change: the test tampered with nothing")
	}

	records := readStream(t, table, func(r map[string]any) bool { return r["eventName"] == "REMOVE" })
	fn := startFunction(t)
	var resp archive.Response
	// In two batches, as Lambda may deliver them.
	half := len(records) / 2
	for _, batch := range [][]json.RawMessage{records[:half], records[half:]} {
		r := fn.invoke(t, streamEvent(t, batch))
		if r.Failed() {
			t.Fatalf("the function failed: %s %s\noutput:\n%s", r.ErrorType, r.Payload, fn.Output())
		}
		var part archive.Response
		if err := json.Unmarshal(r.Payload, &part); err != nil {
			t.Fatal(err)
		}
		resp.Added, resp.Changed, resp.Deleted, resp.Ignored = resp.Added+part.Added, resp.Changed+part.Changed, resp.Deleted+part.Deleted, resp.Ignored+part.Ignored
	}
	fn.Stop()
	entries := fn.entries(t)

	var added []workflow.AuditEvent
	changed, deleted := map[string]archive.Entry{}, map[string]archive.Entry{}
	for _, e := range entries {
		if e.Event != nil && e.Event.ApprovalID != a.ID || e.Before != nil && e.Before.ApprovalID != a.ID {
			continue
		}
		switch e.Archived {
		case archive.Added:
			added = append(added, *e.Event)
		case archive.Changed:
			changed[e.Record] = e
		case archive.Deleted:
			deleted[e.Record] = e
		default:
			t.Errorf("unexpected archive line %+v", e)
		}
		if len(e.Undecodable) > 0 {
			t.Errorf("an audit record did not decode: %+v", e.Undecodable)
		}
		if !strings.HasPrefix(e.Stream, "arn:aws:dynamodb:") || !strings.Contains(e.Stream, "/"+table+"/stream/") {
			t.Errorf("archive line of %s names the stream %q", e.Record, e.Stream)
		}
	}
	if diff := cmp.Diff(trail, added); diff != "" {
		t.Errorf("the archive's added records are not the trail as first written (-trail +archive):\n%s", diff)
	}
	recordOf := func(e workflow.AuditEvent) string {
		return fmt.Sprintf("%s%s#%06d", dynamo.AuditRecordPrefix, e.ApprovalID, e.Seq)
	}
	overwritten := decided
	overwritten.Actor, overwritten.Action = "U0MALLORY", workflow.ActionReject
	retitled := requested
	retitled.Title = "Something else"
	for _, c := range []struct {
		record        string
		before, after workflow.AuditEvent
	}{{recordOf(decided), decided, overwritten}, {recordOf(requested), requested, retitled}} {
		e, ok := changed[c.record]
		if !ok {
			t.Errorf("the archive does not show the change of %s; changes: %v", c.record, changed)
			continue
		}
		if diff := cmp.Diff(&c.before, e.Before); diff != "" {
			t.Errorf("%s before the change (-want +got):\n%s", c.record, diff)
		}
		if diff := cmp.Diff(&c.after, e.Event); diff != "" {
			t.Errorf("%s after the change (-want +got):\n%s", c.record, diff)
		}
	}
	if e, ok := deleted[recordOf(last)]; !ok {
		t.Errorf("the archive does not show the delete of %s", recordOf(last))
	} else if diff := cmp.Diff(&last, e.Before); diff != "" {
		t.Errorf("the deleted record (-want +got):\n%s", diff)
	}
	if len(changed) != 2 || len(deleted) != 1 || resp.Changed != 2 || resp.Deleted != 1 || resp.Added != len(trail) {
		t.Errorf("changed %d, deleted %d, response %+v; want 2 changed, 1 deleted, %d added", len(changed), len(deleted), resp, len(trail))
	}
	if resp.Ignored == 0 {
		t.Error("the approval's own record and entries were archived, not ignored")
	}
	if out := fn.Output(); strings.Contains(out, token) {
		t.Errorf("the function's output holds the task token:\n%s", out)
	}
	if !strings.Contains(fn.Output(), "the archive keeps what they were") {
		t.Errorf("the function did not warn of the changes:\n%s", fn.Output())
	}
}

// A record DynamoDB's time to live removes is archived as expired, not as
// a delete; an image that is not an audit event is kept as the stream gave
// it; a payload that is not a stream event is refused and archives nothing.
func TestArchiveTellsExpiryFromDeletionAndKeepsWhatItCannotRead(t *testing.T) {
	t.Parallel()
	fn := startFunction(t)
	ttl := `{"eventID":"1","eventName":"REMOVE","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"us-east-1",
		"dynamodb":{"ApproximateCreationDateTime":1764000000,"Keys":{"id":{"S":"log#A1#000001"}},
		"OldImage":{"id":{"S":"log#A1#000001"},"approvalId":{"S":"A1"},"seq":{"N":"1"},"type":{"S":"requested"},"at":{"S":"2025-11-24T16:00:00Z"}},
		"SequenceNumber":"100","SizeBytes":80,"StreamViewType":"NEW_AND_OLD_IMAGES"},
		"userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"},
		"eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/approvals/stream/2025-11-24T00:00:00.000"}`
	forged := `{"eventID":"2","eventName":"INSERT","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"us-east-1",
		"dynamodb":{"ApproximateCreationDateTime":1764000001,"Keys":{"id":{"S":"log#A1#000009"}},
		"NewImage":{"id":{"S":"log#A1#000009"},"note":{"S":"not an event"}},
		"SequenceNumber":"101","SizeBytes":40,"StreamViewType":"NEW_AND_OLD_IMAGES"},
		"eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/approvals/stream/2025-11-24T00:00:00.000"}`
	r := fn.invoke(t, []byte(`{"Records":[`+ttl+`,`+forged+`]}`))
	if r.Failed() {
		t.Fatalf("the function failed: %s %s", r.ErrorType, r.Payload)
	}
	for _, bad := range []string{`not json`, `{"Records":"none"}`, `{"Records":[{"eventName":"INSERT","dynamodb":{"SequenceNumber":"1"}}]}`} {
		if r := fn.invoke(t, []byte(bad)); !r.Failed() || !strings.Contains(string(r.Payload), "InvalidEvent") {
			t.Errorf("payload %s: %s %s, want an InvalidEvent error", bad, r.ErrorType, r.Payload)
		}
	}
	fn.Stop()
	entries := fn.entries(t)
	if len(entries) != 2 {
		t.Fatalf("%d archive lines, want 2: %+v", len(entries), entries)
	}
	if e := entries[0]; e.Archived != archive.Expired || e.Before == nil || e.Before.Type != workflow.EventRequested || e.By != "dynamodb.amazonaws.com" || e.Sequence != "100" {
		t.Errorf("time to live removal archived as %+v", e)
	}
	if e := entries[1]; e.Archived != archive.Added || e.Event != nil || len(e.Undecodable) != 1 ||
		!strings.Contains(e.Undecodable[0].Problem, "lacks") || !strings.Contains(string(e.Undecodable[0].Item), "not an event") {
		t.Errorf("an undecodable record archived as %+v", e)
	}
}

// streamedTable creates a table of the approvals schema with the stream the
// deployed table has.
func streamedTable(t *testing.T) string {
	t.Helper()
	table := "approvals-" + randomHex(6)
	in := dynamo.TableSchema(table)
	in.StreamSpecification = dynamo.AuditStream()
	if _, err := harness.Admin.CreateTable(t.Context(), in); err != nil {
		t.Fatalf("create table: %v", err)
	}
	if err := dynamo.CreateTable(t.Context(), harness.Admin, table); err != nil {
		t.Fatalf("create table: %v", err)
	}
	return table
}

func exportTrail(t *testing.T, table, id string) []workflow.AuditEvent {
	t.Helper()
	var out []workflow.AuditEvent
	now := time.Now()
	err := dynamo.NewAuditLog(harness.Admin, table, workflow.DefaultAuditRetention).Export(t.Context(), now.Add(-time.Hour), now.Add(time.Hour), func(e workflow.AuditEvent) error {
		if e.ApprovalID == id {
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func findEvent(t *testing.T, trail []workflow.AuditEvent, typ workflow.EventType) workflow.AuditEvent {
	t.Helper()
	for _, e := range trail {
		if e.Type == typ {
			return e
		}
	}
	t.Fatalf("no %s event in %+v", typ, trail)
	return workflow.AuditEvent{}
}

// readStream reads the table's stream from its start, as DynamoDB Local
// sends it on the wire, until a record satisfies last. Each record gets
// the eventSourceARN Lambda adds.
func readStream(t *testing.T, table string, last func(map[string]any) bool) []json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	desc, err := harness.Admin.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(desc.Table.LatestStreamArn)
	if arn == "" {
		t.Fatal("the table has no stream")
	}
	tap := &recordTap{base: http.DefaultTransport}
	streams := dynamodbstreams.New(dynamodbstreams.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(harness.DDB.Endpoint()),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
		HTTPClient:  &http.Client{Transport: tap},
	})
	shards, err := streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	var records []json.RawMessage
	for _, shard := range shards.StreamDescription.Shards {
		it, err := streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
			StreamArn: aws.String(arn), ShardId: shard.ShardId, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon,
		})
		if err != nil {
			t.Fatal(err)
		}
		for iter := it.ShardIterator; iter != nil; {
			out, err := streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
			if err != nil {
				t.Fatalf("GetRecords: %v", err)
			}
			iter = out.NextShardIterator
			if len(out.Records) == 0 {
				break
			}
		}
	}
	done := false
	for _, body := range tap.bodies() {
		var page struct{ Records []map[string]any }
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatalf("GetRecords answered %s: %v", body, err)
		}
		for _, r := range page.Records {
			r["eventSourceARN"] = arn
			raw, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			records = append(records, raw)
			done = done || last(r)
		}
	}
	if !done {
		t.Fatalf("the stream ends before its last expected record: %d records", len(records))
	}
	return records
}

// recordTap keeps the bodies of GetRecords answers.
type recordTap struct {
	base http.RoundTripper
	mu   sync.Mutex
	got  [][]byte
}

func (r *recordTap) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if err != nil || !strings.HasSuffix(req.Header.Get("X-Amz-Target"), ".GetRecords") {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	r.mu.Lock()
	r.got = append(r.got, body)
	r.mu.Unlock()
	return resp, nil
}

func (r *recordTap) bodies() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got
}

func streamEvent(t *testing.T, records []json.RawMessage) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"Records": records})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// function is the binary, serving a Runtime API emulator.
type function struct {
	runtime *lambdaruntime.Server
	*lambdatest.Process
}

func startFunction(t *testing.T) *function {
	t.Helper()
	rt, err := lambdaruntime.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	f := &function{runtime: rt, Process: harness.Start(t, map[string]string{"AWS_LAMBDA_RUNTIME_API": rt.Addr(), "LOG_LEVEL": "debug", "HOME": t.TempDir()})}
	ctx, cancel := f.Context(30 * time.Second)
	defer cancel()
	if err := rt.WaitNext(ctx); err != nil {
		t.Fatalf("the function did not poll for an invocation: %v\noutput:\n%s", err, f.Output())
	}
	return f
}

func (f *function) invoke(t *testing.T, payload []byte) lambdaruntime.Result {
	t.Helper()
	ctx, cancel := f.Context(30 * time.Second)
	defer cancel()
	r, err := f.runtime.Invoke(ctx, payload)
	if err != nil {
		t.Fatalf("Invoke: %v\noutput:\n%s", err, f.Output())
	}
	return r
}

// entries are the archive's lines the function wrote to stdout; every
// stdout line must be one.
func (f *function) entries(t *testing.T) []archive.Entry {
	t.Helper()
	var out []archive.Entry
	for line := range strings.Lines(f.Stdout()) {
		var e archive.Entry
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("stdout line %q is not an archive entry: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
