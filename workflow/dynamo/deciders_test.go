package dynamo

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

// The decider entries follow who may decide an approval, in the same
// writes: its approvers and the requester's exclusion at creation, a
// hand-over, the escalation, and none once it is claimed.
func TestDeciderEntriesFollowWhoMayDecide(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	a := newApproval("token-deciders", 0)
	a.Approvers, a.RequestedBy = []string{"U0ANN", "S0TEAM", "U0REQ"}, "U0REQ"
	a.Policy = workflow.Policy{Quorum: 1, AllowDelegation: true, EscalateTo: []string{"U0BOSS", "S0LEADS"}}
	a.Steps = []workflow.Step{{Kind: workflow.StepEscalate, At: t0.Add(time.Hour)}}
	other := newApproval("token-deciders-other", time.Second)
	other.Approvers = []string{"U0ANN"}
	create(t, s, a)
	create(t, s, other)

	listFor := func(who ...string) []string {
		t.Helper()
		list, err := s.ListFor(ctx, who, 100)
		if err != nil {
			t.Fatal(err)
		}
		return ids(list)
	}
	groups := func(at time.Time) []string {
		t.Helper()
		g, err := s.DeciderGroups(ctx, at)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	steps := []struct {
		name   string
		change func(*workflow.Approval) error
		want   map[string][]string // decider → approvals listed
		groups []string
	}{
		{"created", nil, map[string][]string{
			"U0ANN": {a.ID, other.ID}, "S0TEAM": {a.ID}, "U0REQ": nil, "U0BOSS": nil, "S0LEADS": nil,
		}, []string{"S0TEAM"}},
		{"handed over", func(x *workflow.Approval) error { return x.Delegate("U0ANN", "U0DEL", t0) }, map[string][]string{
			"U0ANN": {other.ID}, "U0DEL": {a.ID}, "S0TEAM": {a.ID},
		}, []string{"S0TEAM"}},
		{"escalated", func(x *workflow.Approval) error {
			x.Steps[0].DoneAt = t0.Add(time.Hour)
			return nil
		}, map[string][]string{
			"U0BOSS": {a.ID}, "S0LEADS": {a.ID}, "U0DEL": {a.ID},
		}, []string{"S0LEADS", "S0TEAM"}},
		{"claimed", func(x *workflow.Approval) error { return x.Claim(approve, t0.Add(2*time.Hour)) }, map[string][]string{
			"U0BOSS": nil, "S0LEADS": nil, "U0DEL": nil, "S0TEAM": nil, "U0ANN": {other.ID},
		}, []string{"S0LEADS", "S0TEAM"}},
	}
	for _, step := range steps {
		if step.change != nil {
			if _, err := s.Update(ctx, a.ID, step.change); err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
		}
		for who, want := range step.want {
			if diff := cmp.Diff(want, listFor(who)); diff != "" {
				t.Errorf("%s: ListFor(%s) (-want +got):\n%s", step.name, who, diff)
			}
		}
		if diff := cmp.Diff(step.groups, groups(t0)); diff != "" {
			t.Errorf("%s: DeciderGroups (-want +got):\n%s", step.name, diff)
		}
	}
	if diff := cmp.Diff([]string{other.ID}, listFor("U0ANN", "S0TEAM", "U0BOSS")); diff != "" {
		t.Errorf("ListFor of several deciders (-want +got):\n%s", diff)
	}
	if got := groups(a.Deadline.Add(time.Second)); len(got) != 0 {
		t.Errorf("DeciderGroups past the last deadline of their approvals = %v, want none", got)
	}
	for _, item := range rawItems(t, s, "") {
		if id := item[attrID].(*types.AttributeValueMemberS).Value; strings.HasPrefix(id, deciderPrefix) && strings.HasSuffix(id, a.ID) {
			t.Errorf("entry %s is left after the claim", id)
		}
	}
}

// Pending approvals stored by a version before the decider entries get
// them from IndexDeciders, once per table.
func TestIndexDecidersWritesTheEntriesOfOlderRecords(t *testing.T) {
	t.Parallel()
	base := newStore(t)
	ctx := t.Context()
	var old []string
	for i, approver := range []string{"U0ANN", "S0TEAM"} {
		a := newApproval("token-old-"+approver, time.Duration(i)*time.Second)
		a.Approvers = []string{approver}
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &base.table, Item: encode(a, 3)}); err != nil {
			t.Fatal(err)
		}
		old = append(old, a.ID)
	}
	decided := newApproval("token-old-decided", 0)
	decided.Status, decided.ClosedAt, decided.TaskToken = workflow.StatusDecided, t0, ""
	if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &base.table, Item: encode(decided, 3)}); err != nil {
		t.Fatal(err)
	}
	c, calls := countedClient()
	s := New(c, base.table)
	if list, _ := s.ListFor(ctx, []string{"U0ANN", "S0TEAM"}, 10); len(list) != 0 {
		t.Fatalf("older records are listed before IndexDeciders: %v", ids(list))
	}
	n, err := s.IndexDeciders(ctx)
	if err != nil || n != 2 {
		t.Fatalf("IndexDeciders = %d, %v; want the 2 pending records", n, err)
	}
	list, err := s.ListFor(ctx, []string{"U0ANN", "S0TEAM"}, 10)
	if diff := cmp.Diff(old, ids(list)); err != nil || diff != "" {
		t.Errorf("ListFor after IndexDeciders (-want +got, %v):\n%s", err, diff)
	}
	if g, _ := s.DeciderGroups(ctx, t0); !cmp.Equal(g, []string{"S0TEAM"}) {
		t.Errorf("DeciderGroups after IndexDeciders = %v, want S0TEAM", g)
	}
	before := calls.Counts()
	if n, err := New(c, base.table).IndexDeciders(ctx); err != nil || n != 0 {
		t.Errorf("IndexDeciders again = %d, %v; want nothing to do", n, err)
	}
	if diff := cmp.Diff(map[string]int64{"GetItem": 1}, calls.Since(before)); diff != "" {
		t.Errorf("IndexDeciders again (-want +got calls):\n%s", diff)
	}
}

func ids(list []workflow.Approval) []string {
	var out []string
	for _, a := range list {
		out = append(out, a.ID)
	}
	return out
}
