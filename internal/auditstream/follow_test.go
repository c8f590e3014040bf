package auditstream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/dynamolocal"
	"github.com/sfnapprovals/approvals/internal/syncbuf"
	"github.com/sfnapprovals/approvals/lambdas/archive"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

var (
	ddb    *dynamolocal.Server
	client *dynamodb.Client
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	ctx := context.Background()
	var err error
	if ddb, err = dynamolocal.Start(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "start DynamoDB Local (run make tools): %v\n", err)
		return 1
	}
	defer ddb.Close()
	if client, err = dynamolocal.Client(ctx, ddb.Endpoint()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

func streamsClient() *dynamodbstreams.Client {
	return dynamodbstreams.New(dynamodbstreams.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(ddb.Endpoint()),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	})
}

// The follower archives the trail of approvals as they are written, each
// record once however often it catches up, and a change made to a record
// in the table after it.
func TestFollowerArchivesEachRecordOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	table := "approvals-" + randomHex(6)
	arn, err := CreateTable(ctx, client, table)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := CreateTable(ctx, client, table); err != nil || again != arn {
		t.Fatalf("CreateTable again: %q, %v; want %q", again, err, arn)
	}
	out := &syncbuf.Buffer{}
	f := NewFollower(streamsClient(), arn, archive.New(Decoder{}, out, zap.NewNop()))
	resumer := workflowtest.NewResumer()
	svc := workflow.NewService(dynamo.New(client, table), resumer, nil)

	decide := func() workflow.Approval {
		t.Helper()
		token := "token-" + randomHex(8)
		a, _, err := svc.Request(ctx, workflow.Request{
			TaskToken: workflow.TaskToken(token), ExecutionARN: "arn:aws:states:us-east-1:123456789012:execution:sm:" + randomHex(4),
			StateName: "Approve", Channel: "C0123", Approvers: []string{"U0ALICE"}, Title: "Publish",
		})
		if err != nil {
			t.Fatal(err)
		}
		resumer.Open(token)
		if _, err := svc.RecordMessage(ctx, a.ID, "C0123", "1764000000.000100"); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Decide(ctx, a.ID, workflow.Decision{Action: workflow.ActionReject, Text: "no", DecidedBy: "U0ALICE"}); err != nil {
			t.Fatal(err)
		}
		if err := svc.MessageSynced(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		return a
	}
	first := decide()
	if n, err := f.CatchUp(ctx); err != nil || n == 0 {
		t.Fatalf("CatchUp: %d records, %v", n, err)
	}
	if n, err := f.CatchUp(ctx); err != nil || n != 0 {
		t.Fatalf("CatchUp with nothing new: %d records, %v", n, err)
	}
	second := decide()
	want := map[string][]workflow.AuditEvent{first.ID: trail(t, table, first.ID), second.ID: trail(t, table, second.ID)}
	if _, err := client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		"id": &types.AttributeValueMemberS{Value: fmt.Sprintf("%s%s#%06d", dynamo.AuditRecordPrefix, first.ID, 1)},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}

	added := map[string][]workflow.AuditEvent{}
	var deleted []archive.Entry
	for line := range strings.Lines(out.String()) {
		var e archive.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("archive line %q: %v", line, err)
		}
		switch e.Archived {
		case archive.Added:
			added[e.Event.ApprovalID] = append(added[e.Event.ApprovalID], *e.Event)
		case archive.Deleted:
			deleted = append(deleted, e)
		default:
			t.Errorf("unexpected line %s", line)
		}
	}
	// The first approval's first record is gone from the table, not from
	// the archive.
	for id, trail := range want {
		if len(trail) < 4 {
			t.Fatalf("approval %s has a trail of %d records", id, len(trail))
		}
		if diff := cmp.Diff(trail, added[id]); diff != "" {
			t.Errorf("approval %s: archived records (-as written +archive):\n%s", id, diff)
		}
	}
	if len(deleted) != 1 || deleted[0].Before == nil || deleted[0].Before.ApprovalID != first.ID || deleted[0].Before.Seq != 1 {
		t.Errorf("deleted lines: %+v", deleted)
	}
}

// A table made before the archive gets its stream; a follower that goes on
// after the last record an archive holds archives only what came after it.
func TestCreateTableTurnsTheStreamOnAndAfterSkipsThePast(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	table := "approvals-" + randomHex(6)
	if err := dynamo.CreateTable(ctx, client, table); err != nil {
		t.Fatal(err)
	}
	arn, err := CreateTable(ctx, client, table)
	if err != nil || arn == "" {
		t.Fatalf("CreateTable on a table without a stream: %q, %v", arn, err)
	}
	svc := workflow.NewService(dynamo.New(client, table), workflowtest.NewResumer(), nil)
	request := func(title string) workflow.Approval {
		t.Helper()
		a, _, err := svc.Request(ctx, workflow.Request{
			TaskToken: workflow.TaskToken("token-" + randomHex(8)), ExecutionARN: "arn:aws:states:us-east-1:123456789012:execution:sm:" + randomHex(4),
			StateName: "Approve", Channel: "C0123", Approvers: []string{"U0ALICE"}, Title: title,
		})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	before := request("before")
	path := filepath.Join(t.TempDir(), "archive.jsonl")
	if stream, last, err := LastArchived(path); err != nil || stream != "" || last != "" {
		t.Fatalf("LastArchived of no file: %q %q, %v", stream, last, err)
	}
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewFollower(streamsClient(), arn, archive.New(Decoder{}, file, zap.NewNop())).CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	// A line cut short by a stop mid-write.
	if _, err := file.WriteString(`{"archived":"added","rec`); err != nil {
		t.Fatal(err)
	}
	file.Close()
	stream, last, err := LastArchived(path)
	if err != nil || stream != arn || last == "" {
		t.Fatalf("LastArchived: %q %q, %v", stream, last, err)
	}

	out := &syncbuf.Buffer{}
	f := NewFollower(streamsClient(), arn, archive.New(Decoder{}, out, zap.NewNop()))
	f.After(stream, last)
	if _, err := f.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	after := request("after")
	if _, err := f.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, before.ID) || !strings.Contains(got, after.ID) {
		t.Errorf("archived %s; want %s's records and none of %s's", got, after.ID, before.ID)
	}

	// The sequence of another stream (the table made again) is no place
	// to go on from: everything is archived.
	again := &syncbuf.Buffer{}
	other := NewFollower(streamsClient(), arn, archive.New(Decoder{}, again, zap.NewNop()))
	other.After(arn+"-of-an-older-table", last)
	if _, err := other.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(again.String(), before.ID) {
		t.Errorf("a follower after another stream's record left out %s's records", before.ID)
	}
}

// Run follows until its context ends, and reports what fails.
func TestFollowerRunStopsWithItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	f := NewFollower(streamsClient(), "arn:aws:dynamodb:ddblocal:000000000000:table/missing/stream/2026-01-01T00:00:00.000", archive.New(Decoder{}, &syncbuf.Buffer{}, zap.NewNop()))
	reported := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		done <- f.Run(ctx, time.Hour, func(err error) {
			select {
			case reported <- err:
			default:
			}
		})
	}()
	if err := <-reported; err == nil || !strings.Contains(err.Error(), "describe stream") {
		t.Errorf("reported %v", err)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Run returned %v", err)
	}
}

func trail(t *testing.T, table, id string) []workflow.AuditEvent {
	t.Helper()
	var out []workflow.AuditEvent
	now := time.Now()
	if err := dynamo.NewAuditLog(client, table, workflow.DefaultAuditRetention).Export(t.Context(), now.Add(-time.Hour), now.Add(time.Hour), func(e workflow.AuditEvent) error {
		if e.ApprovalID == id {
			out = append(out, e)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
