package dynamo

import (
	"slices"
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
		// The entries go with the write after the decision's (here the
		// outcome's: there is no message to update).
		{"finished", func(x *workflow.Approval) error { return x.Finish(workflow.StatusDecided, t0.Add(2*time.Hour)) }, map[string][]string{
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
	// Marks last until the end of the day after the last deadline.
	if got := groups(a.Deadline.Add(48 * time.Hour)); len(got) != 0 {
		t.Errorf("DeciderGroups two days past the last deadline of their approvals = %v, want none", got)
	}
	for _, item := range rawItems(t, s, "") {
		if id := item[attrID].(*types.AttributeValueMemberS).Value; strings.HasPrefix(id, deciderPrefix) && strings.HasSuffix(id, a.ID) {
			t.Errorf("entry %s is left after the claim", id)
		}
	}
}

// Records a version before this one stored are brought up to it by
// Migrate, once per table: pending ones get their decider entries and
// count, a claimed one moves from its own queue to the open queue, and
// the audit events left in a final one are written.
func TestMigrateBringsOlderRecordsUpToDate(t *testing.T) {
	t.Parallel()
	base := newStore(t)
	ctx := t.Context()
	put := func(item map[string]types.AttributeValue) {
		t.Helper()
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &base.table, Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	var old []string
	for i, approver := range []string{"U0ANN", "S0TEAM"} {
		a := newApproval("token-old-"+approver, time.Duration(i)*time.Second)
		a.Approvers = []string{approver}
		a.ExecutionARN = "arn:aws:states:us-east-1:123456789012:execution:sm:old-" + approver
		put(encode(a, 3))
		old = append(old, a.ID)
	}
	claimed := newApproval("token-old-claimed", 0)
	claimed.Status, claimed.ClaimedAt, claimed.Decision = workflow.StatusClaimed, t0, &approve
	item := encode(claimed, 3)
	item[attrQueue], item[attrQueuedAt] = str("claimed"), str(claimed.CreatedAt.Format(sortableTime)+"#"+claimed.ID)
	put(item)
	audited := newApproval("token-old-audited", 0)
	audited.Status, audited.ClosedAt, audited.TaskToken, audited.MessageSynced = workflow.StatusDecided, t0, "", true
	audited.AuditSeq, audited.AuditOutbox = 1, []workflow.AuditEvent{{ApprovalID: audited.ID, Seq: 1, At: t0, Type: workflow.EventResumed, Actor: "U0ANN"}}
	item = encode(audited, 3)
	item[attrQueue] = str(string(workflow.QueueAudit))
	put(item)

	c, calls := countedClient()
	s := New(c, base.table)
	if list, _ := s.ListFor(ctx, []string{"U0ANN", "S0TEAM"}, 10); len(list) != 0 {
		t.Fatalf("older records are listed before Migrate: %v", ids(list))
	}
	n, err := s.Migrate(ctx)
	if err != nil || n != 4 {
		t.Fatalf("Migrate = %d, %v; want the 2 pending, the claimed and the audited record rewritten", n, err)
	}
	list, err := s.ListFor(ctx, []string{"U0ANN", "S0TEAM"}, 10)
	if diff := cmp.Diff(old, ids(list)); err != nil || diff != "" {
		t.Errorf("ListFor after Migrate (-want +got, %v):\n%s", err, diff)
	}
	if g, _ := s.DeciderGroups(ctx, t0); !cmp.Equal(g, []string{"S0TEAM"}) {
		t.Errorf("DeciderGroups after Migrate = %v, want S0TEAM", g)
	}
	if got, _ := s.OpenCounts(ctx); !cmp.Equal(got, []int{3, 0, 0, 0}) {
		t.Errorf("OpenCounts after Migrate = %v, want the 3 open approvals under an hour", got)
	}
	open, _, err := s.List(ctx, workflow.QueueOpen, "", time.Time{}, 10)
	if err != nil || !slices.Contains(ids(open), claimed.ID) {
		t.Errorf("the claimed approval is not on the open queue after Migrate: %v, %v", ids(open), err)
	}
	if checks, _, err := s.ChecksDue(ctx, t0.Add(time.Hour), 10); err != nil || len(checks) != 2 {
		t.Errorf("execution checks after Migrate = %v, %v; want the 2 pending approvals' executions", checks, err)
	}
	if got, _ := s.Get(ctx, audited.ID); len(got.AuditOutbox) != 0 {
		t.Errorf("the final record still holds %d audit events", len(got.AuditOutbox))
	}
	var exported []int
	_ = NewAuditLog(client, base.table, time.Hour).Export(ctx, t0.Add(-time.Hour), t0.Add(time.Hour), func(e workflow.AuditEvent) error {
		if e.ApprovalID == audited.ID {
			exported = append(exported, e.Seq)
		}
		return nil
	})
	if !cmp.Equal(exported, []int{1}) {
		t.Errorf("the final record's left events exported: %v, want [1]", exported)
	}

	before := calls.Counts()
	if n, err := New(c, base.table).Migrate(ctx); err != nil || n != 0 {
		t.Errorf("Migrate again = %d, %v; want nothing to do", n, err)
	}
	if diff := cmp.Diff(map[string]int64{"GetItem": 1}, calls.Since(before)); diff != "" {
		t.Errorf("Migrate again (-want +got calls):\n%s", diff)
	}
}

func ids(list []workflow.Approval) []string {
	var out []string
	for _, a := range list {
		out = append(out, a.ID)
	}
	return out
}

// The requester's entries list the pending requests they asked for,
// oldest first, apart from anybody's decider entries.
func TestRequesterEntriesListTheirOpenRequests(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	first := newApproval("token-asked-first", 0)
	first.Approvers, first.RequestedBy = []string{"U0ANN"}, "U0ASK"
	second := newApproval("token-asked-second", time.Second)
	second.Approvers, second.RequestedBy = []string{"U0ANN", "U0ASK"}, "U0ASK"
	others := newApproval("token-asked-others", 2*time.Second)
	others.Approvers, others.RequestedBy = []string{"U0ASK"}, "U0ELSE"
	for _, a := range []workflow.Approval{second, others, first} {
		create(t, s, a)
	}
	requestedBy := func(who string) []string {
		t.Helper()
		list, err := s.ListRequestedBy(ctx, who, 100)
		if err != nil {
			t.Fatal(err)
		}
		return ids(list)
	}
	if diff := cmp.Diff([]string{first.ID, second.ID}, requestedBy("U0ASK")); diff != "" {
		t.Errorf("U0ASK's requests (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{others.ID}, requestedBy("U0ELSE")); diff != "" {
		t.Errorf("U0ELSE's requests (-want +got):\n%s", diff)
	}
	// Asking is not deciding: U0ASK may decide only the one U0ELSE asked for.
	list, err := s.ListFor(ctx, []string{"U0ASK"}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{others.ID}, ids(list)); diff != "" {
		t.Errorf("U0ASK may decide (-want +got):\n%s", diff)
	}
	if _, err := s.Update(ctx, first.ID, func(x *workflow.Approval) error { return x.Claim(approve, t0.Add(time.Hour)) }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{second.ID}, requestedBy("U0ASK")); diff != "" {
		t.Errorf("U0ASK's requests once one is claimed (-want +got):\n%s", diff)
	}
	if _, err := s.ListRequestedBy(ctx, "", 10); workflow.ErrorCode(err) != workflow.EINVALID {
		t.Errorf("ListRequestedBy without a requester = %v, want EINVALID", err)
	}
}
