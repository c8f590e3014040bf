package dynamo

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/sfnapprovals/approvals/internal/dynamolocal"
	"github.com/sfnapprovals/approvals/workflow"
)

// client talks to the DynamoDB Local every test in this package shares; each
// test uses a table of its own.
var client *dynamodb.Client

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	server, err := dynamolocal.Start(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	defer server.Close()
	if client, err = dynamolocal.Client(ctx, server.Endpoint()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	return m.Run()
}

var tableCount atomic.Int64

// countedClient returns a client of the shared DynamoDB Local whose calls
// the Calls count.
func countedClient() (*dynamodb.Client, *Calls) {
	calls := &Calls{}
	return dynamodb.New(client.Options(), calls.Option), calls
}

// newStore returns a Store on a new table, deleted when the test ends.
func newStore(tb testing.TB) *Store {
	tb.Helper()
	name := fmt.Sprintf("t%d-%s", tableCount.Add(1), regexp.MustCompile(`[^a-zA-Z0-9_.-]+`).ReplaceAllString(tb.Name(), "-"))
	name = name[:min(len(name), 200)]
	if err := CreateTable(tb.Context(), client, name); err != nil {
		tb.Fatalf("CreateTable(%s): %v", name, err)
	}
	tb.Cleanup(func() {
		_, err := client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		if err != nil {
			tb.Errorf("delete table %s: %v", name, err)
		}
	})
	return New(client, name)
}

// t0 has nanoseconds, to check they survive a round trip.
var t0 = time.Date(2026, 11, 29, 10, 0, 0, 123456789, time.UTC)

// newApproval returns a pending approval for the token created at t0+age,
// with a deadline a day later (so the pending queue, ordered by Due, is in
// creation order).
func newApproval(token string, age time.Duration) workflow.Approval {
	return workflow.Approval{
		ID:        workflow.NewApprovalID(),
		TaskToken: workflow.TaskToken(token),
		Channel:   "C0123",
		Approvers: []string{"U0123"},
		Title:     "Publish the post",
		CreatedAt: t0.Add(age),
		Deadline:  t0.Add(age + 24*time.Hour),
		PurgeAt:   t0.Add(90 * 24 * time.Hour).Truncate(time.Second),
		Status:    workflow.StatusPending,
	}
}

// create stores a and fails the test if it could not.
func create(tb testing.TB, s *Store, a workflow.Approval) workflow.Approval {
	tb.Helper()
	got, created, err := s.Create(tb.Context(), a)
	if err != nil || !created {
		tb.Fatalf("Create(%s) = created %v, %v; want a new approval", a.ID, created, err)
	}
	return got
}

// wantCode fails the test unless err is a domain error with the code.
func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := workflow.ErrorCode(err); got != code {
		tb.Fatalf("error = %v (code %q), want code %q", err, got, code)
	}
}

var approve = workflow.Decision{Action: workflow.ActionApprove, DraftIndex: workflow.NoDraft, DecidedBy: "U0123", DecidedAt: t0}
