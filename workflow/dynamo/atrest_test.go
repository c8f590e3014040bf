package dynamo

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

// rawItems scans the table, or one of its indexes, as DynamoDB holds it.
func rawItems(t *testing.T, s *Store, index string) []map[string]types.AttributeValue {
	t.Helper()
	in := &dynamodb.ScanInput{TableName: aws.String(s.table)}
	if index != "" {
		in.IndexName = aws.String(index)
	}
	var items []map[string]types.AttributeValue
	for {
		out, err := client.Scan(t.Context(), in)
		if err != nil {
			t.Fatalf("scan %s %s: %v", s.table, index, err)
		}
		items = append(items, out.Items...)
		if out.LastEvaluatedKey == nil {
			return items
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// holds reports whether any attribute value of the item, nested ones
// included, contains text.
func holds(v types.AttributeValue, text string) bool {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return strings.Contains(v.Value, text)
	case *types.AttributeValueMemberL:
		for _, e := range v.Value {
			if holds(e, text) {
				return true
			}
		}
	case *types.AttributeValueMemberM:
		for _, e := range v.Value {
			if holds(e, text) {
				return true
			}
		}
	}
	return false
}

func itemHolds(item map[string]types.AttributeValue, text string) bool {
	return holds(&types.AttributeValueMemberM{Value: item}, text)
}

// The token is in the table only while the approval is open, and never in
// an index: after a decision and after an expiry no item holds it.
func TestNoTaskTokenAtRestOnceFinal(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	tokens := map[string]string{}
	var ids []string
	for _, name := range []string{"decided", "expired", "open"} {
		token := fmt.Sprintf("secret-token-%s-AAAAQWxsIHRoZSB3b3JsZCdz", name)
		a := newApproval(token, 0)
		a.ExecutionARN = "arn:aws:states:us-east-1:123456789012:execution:sm:run-" + name
		a = create(t, s, a)
		if _, err := s.SetMessage(ctx, a.ID, "C0123", "1700000000.00010"+fmt.Sprint(len(ids))); err != nil {
			t.Fatal(err)
		}
		tokens[name] = token
		ids = append(ids, a.ID)
	}
	for i, status := range []workflow.Status{workflow.StatusDecided, workflow.StatusExpired} {
		d := approve
		if status == workflow.StatusExpired {
			d = workflow.Decision{Action: workflow.ActionExpire, DraftIndex: workflow.NoDraft, DecidedAt: t0}
		}
		if _, err := s.Claim(ctx, ids[i], d, t0); err != nil {
			t.Fatal(err)
		}
		got, err := s.Finish(ctx, ids[i], status, t0.Add(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if got.TaskToken != "" {
			t.Errorf("Finish(%s) returned an approval that still holds its token", status)
		}
		// A fresh store reads the item itself, not a remembered version.
		if stored, err := New(client, s.table).Get(ctx, ids[i]); err != nil || stored.TaskToken != "" {
			t.Errorf("Get after Finish(%s) = token %v, %v; want no token", status, stored.TaskToken != "", err)
		}
	}

	items := rawItems(t, s, "")
	for _, item := range items {
		id := item[attrID].(*types.AttributeValueMemberS).Value
		for name, token := range tokens {
			if itemHolds(item, token) && !(name == "open" && id == ids[2]) {
				t.Errorf("item %s holds the task token of the %s approval", id, name)
			}
		}
	}
	approvals, guards := 0, 0
	for _, item := range items {
		switch id := item[attrID].(*types.AttributeValueMemberS).Value; {
		case isApproval(item):
			approvals++
		case strings.HasPrefix(id, "token#"):
			guards++
		case !slices.ContainsFunc([]string{logPrefix, historyPrefix, deciderPrefix, countPrefix, checkPrefix}, func(p string) bool { return strings.HasPrefix(id, p) }):
			t.Errorf("table holds item %s, which is none of approval, guard, audit record, history, decider entry, count or execution check", id)
		}
	}
	if approvals != 3 || guards != 3 {
		t.Errorf("table holds %d approvals and %d token guards, want 3 and 3", approvals, guards)
	}
	found := false
	for _, item := range items {
		found = found || itemHolds(item, tokens["open"])
	}
	if !found {
		t.Error("the open approval's token is gone: the check above proves nothing")
	}
	for _, index := range TableSchema(s.table).GlobalSecondaryIndexes {
		name := aws.ToString(index.IndexName)
		projected := rawItems(t, s, name)
		if len(projected) == 0 {
			t.Errorf("index %s is empty: the check proves nothing", name)
		}
		for _, item := range projected {
			for which, token := range tokens {
				if itemHolds(item, token) {
					t.Errorf("index %s holds the task token of the %s approval", name, which)
				}
			}
		}
	}
}

// List returns exactly Approval.Listed: what the index projects is what the
// domain documents, nothing more (no token) and nothing less.
func TestListReturnsTheListedFields(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	a := workflow.Approval{
		ID:              workflow.NewApprovalID(),
		TaskToken:       "token-listed",
		ExecutionARN:    "arn:aws:states:us-east-1:123456789012:execution:sm:run-1",
		StateName:       "Approve",
		Channel:         "C0123",
		ThreadTS:        "1700000000.000100",
		Approvers:       []string{"U0123", "S0456"},
		RequestedBy:     "U0999",
		Title:           "Publish the post",
		Summary:         "*mrkdwn* body",
		Fields:          []workflow.Field{{Label: "Theme", Value: "Step Functions"}},
		Drafts:          []string{"first draft", "second draft"},
		RevisionPresets: []string{"Shorter"},
		AllowSkip:       true,
		CreatedAt:       t0,
		Deadline:        t0.Add(24 * time.Hour),
		PurgeAt:         t0.Add(91 * 24 * time.Hour).Truncate(time.Second),
		Status:          workflow.StatusPending,
	}
	create(t, s, a)
	steps := []struct {
		queue workflow.Queue
		do    func() (workflow.Approval, error)
	}{
		{workflow.QueueOpen, func() (workflow.Approval, error) { return s.SetMessage(ctx, a.ID, "C0123", "1700000000.000200") }},
		{workflow.QueueOpen, func() (workflow.Approval, error) { return s.Claim(ctx, a.ID, approve, t0.Add(time.Minute)) }},
		{workflow.QueueMessage, func() (workflow.Approval, error) {
			return s.Finish(ctx, a.ID, workflow.StatusDecided, t0.Add(2*time.Minute))
		}},
	}
	for _, step := range steps {
		full, err := step.do()
		if err != nil {
			t.Fatal(err)
		}
		list, _, err := s.List(ctx, step.queue, "", time.Time{}, 10)
		if err != nil || len(list) != 1 {
			t.Fatalf("List(%s) = %d approvals, %v; want 1", step.queue, len(list), err)
		}
		if diff := cmp.Diff(full.Listed(), list[0]); diff != "" {
			t.Errorf("List(%s) (-Listed +got):\n%s", step.queue, diff)
		}
	}
}
