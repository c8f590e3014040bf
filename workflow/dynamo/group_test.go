package dynamo

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

// gate holds every call of one operation (GetItem or PutItem) on a real
// client until release is closed, telling entered of each; it can also
// leave a key of each BatchGetItem unprocessed, as DynamoDB does past its
// 16 MB answer or under throttling, and fail the first TransactWriteItems
// whole.
type gate struct {
	ItemAPI
	op          string
	entered     chan struct{}
	release     chan struct{}
	unprocessed string // an ID BatchGetItem leaves unprocessed
	failGroup   bool   // the first TransactWriteItems fails
}

func newGate(client ItemAPI, op string) *gate {
	return &gate{ItemAPI: client, op: op, entered: make(chan struct{}, 100), release: make(chan struct{})}
}

func (g *gate) hold(op string) {
	if op == g.op {
		g.entered <- struct{}{}
		<-g.release
	}
}

func (g *gate) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	g.hold("GetItem")
	return g.ItemAPI.GetItem(ctx, in, opts...)
}

func (g *gate) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	g.hold("PutItem")
	return g.ItemAPI.PutItem(ctx, in, opts...)
}

func (g *gate) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	out, err := g.ItemAPI.BatchGetItem(ctx, in, opts...)
	if err != nil || g.unprocessed == "" {
		return out, err
	}
	for table, items := range out.Responses {
		for i, item := range items {
			if id, _ := item[attrID].(*types.AttributeValueMemberS); id != nil && id.Value == g.unprocessed {
				out.Responses[table] = append(items[:i:i], items[i+1:]...)
				out.UnprocessedKeys = map[string]types.KeysAndAttributes{table: {Keys: []map[string]types.AttributeValue{key(id.Value)}, ConsistentRead: in.RequestItems[table].ConsistentRead}}
				return out, nil
			}
		}
	}
	return out, nil
}

func (g *gate) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if g.failGroup {
		g.failGroup = false // only a group's call gets here while the gate holds
		return nil, &smithy.GenericAPIError{Code: "InternalServerError", Message: "Internal server error"}
	}
	return g.ItemAPI.TransactWriteItems(ctx, in, opts...)
}

// queued is how many calls wait for a group.
func (c *calls[T]) queued() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}

// waitQueued waits until n calls wait for a group.
func waitQueued[T comparable](t *testing.T, c *calls[T], n int) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for c.queued() != n {
		select {
		case <-t.Context().Done():
			t.Fatalf("%d calls wait for a group, want %d", c.queued(), n)
		case <-tick.C:
		}
	}
}

// grouped is a store on its own table whose calls go through a gate on a
// counted client, and the approvals it holds, known to it (no read before
// a write).
type grouped struct {
	s         *Store
	gate      *gate
	calls     *Calls
	approvals []workflow.Approval
}

func newGrouped(t *testing.T, op string, n int) *grouped {
	base := newStore(t)
	c, calls := countedClient()
	g := &grouped{gate: newGate(c, op), calls: calls}
	g.s = New(g.gate, base.table)
	for i := range n {
		a := create(t, base, newApproval(fmt.Sprintf("token-%s-%d", t.Name(), i), time.Duration(i)*time.Second))
		if op != "GetItem" {
			if _, err := g.s.Get(t.Context(), a.ID); err != nil {
				t.Fatal(err)
			}
		}
		g.approvals = append(g.approvals, a)
	}
	return g
}

func claim(a *workflow.Approval) error { return a.Claim(approve, t0) }

// update claims the approval in the background; its error comes on the
// channel.
func (g *grouped) update(ctx context.Context, id string, errs chan<- error) {
	go func() {
		_, err := g.s.Update(ctx, id, claim)
		errs <- err
	}()
}

// countConflicts receives n errors and counts the ECONFLICTs; any other
// error fails the test.
func countConflicts(t *testing.T, errs <-chan error, n int) int {
	t.Helper()
	conflicts := 0
	for range n {
		switch err := <-errs; workflow.ErrorCode(err) {
		case "":
		case workflow.ECONFLICT:
			conflicts++
		default:
			t.Errorf("Update: %v", err)
		}
	}
	return conflicts
}

// holdAll claims the first maxInFlight approvals and returns once the
// gate holds their writes, all the calls the store may have in flight.
func (g *grouped) holdAll(ctx context.Context, errs chan<- error) {
	for _, a := range g.approvals[:maxInFlight] {
		g.update(ctx, a.ID, errs)
	}
	for range maxInFlight {
		<-g.gate.entered
	}
}

// Writes that come while maxInFlight are in flight go as one transaction
// when a call ends; each is written as if alone (here: claimed), and a
// write whose caller gave up while it waited is not written at all.
func TestWritesThatWaitGoAsOneTransaction(t *testing.T) {
	t.Parallel()
	g := newGrouped(t, "PutItem", maxInFlight+21)
	ctx := t.Context()
	before := g.calls.Counts()
	errs := make(chan error, len(g.approvals))
	g.holdAll(ctx, errs)
	gaveUp, giveUp := context.WithCancel(ctx)
	gone := g.approvals[len(g.approvals)-1]
	g.update(gaveUp, gone.ID, errs)
	waitQueued(t, g.s.writes, 1)
	for _, a := range g.approvals[maxInFlight : len(g.approvals)-1] {
		g.update(ctx, a.ID, errs)
	}
	waitQueued(t, g.s.writes, 21)
	giveUp()
	waitQueued(t, g.s.writes, 20)
	close(g.gate.release)
	var failed []error
	for range g.approvals {
		if err := <-errs; err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) != 1 || !errors.Is(failed[0], context.Canceled) {
		t.Errorf("errors %v, want only the one given up (context canceled)", failed)
	}
	if diff := cmp.Diff(map[string]int64{"PutItem": maxInFlight, "TransactWriteItems": 1}, g.calls.Since(before)); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	check := New(client, g.s.table)
	for _, a := range g.approvals {
		got, err := check.Get(ctx, a.ID)
		want := workflow.StatusClaimed
		if a.ID == gone.ID {
			want = workflow.StatusPending
		}
		if err != nil || got.Status != want || (want == workflow.StatusClaimed && got.Decision.DecidedBy != approve.DecidedBy) {
			t.Errorf("approval %s is %s (%v), want %s", a.ID, got.Status, err, want)
		}
	}
}

// A grouped write whose approval changed meanwhile gets its own answer
// (here the change refused on the newer version: ECONFLICT), and the
// others of its group are written by the next call.
func TestGroupedWriteThatLostItsRaceGetsItsOwnAnswer(t *testing.T) {
	t.Parallel()
	g := newGrouped(t, "PutItem", maxInFlight+4)
	ctx := t.Context()
	errs := make(chan error, 16)
	g.holdAll(ctx, errs)
	waiting := g.approvals[maxInFlight:]
	for i, a := range waiting {
		g.update(ctx, a.ID, errs)
		waitQueued(t, g.s.writes, i+1)
	}
	// Another replica claims one of the waiting approvals first.
	lost := waiting[2]
	other := approve
	other.DecidedBy = "U0OTHER"
	if _, err := New(client, g.s.table).Update(ctx, lost.ID, func(a *workflow.Approval) error { return a.Claim(other, t0) }); err != nil {
		t.Fatal(err)
	}
	before := g.calls.Counts()
	close(g.gate.release)
	conflicts := countConflicts(t, errs, maxInFlight+len(waiting))
	if conflicts != 1 {
		t.Errorf("%d writes lost their race, want 1", conflicts)
	}
	// The 4 held alone; the group of 4 cancelled for the one that lost its
	// race; the 3 others again, as one.
	if diff := cmp.Diff(map[string]int64{"TransactWriteItems": 2, "PutItem": maxInFlight}, g.calls.Since(before)); diff != "" {
		t.Errorf("calls after the release (-want +got):\n%s", diff)
	}
	check := New(client, g.s.table)
	for _, a := range g.approvals {
		got, err := check.Get(ctx, a.ID)
		want := approve.DecidedBy
		if a.ID == lost.ID {
			want = other.DecidedBy
		}
		if err != nil || got.Status != workflow.StatusClaimed || got.Decision.DecidedBy != want || got.Attempts != 1 {
			t.Errorf("approval %s: %s by %v, %d attempts (%v); want claimed once by %s", a.ID, got.Status, got.Decision, got.Attempts, err, want)
		}
	}
}

// A group DynamoDB refuses whole (here: an internal error) is written
// again one write at a time, each getting the answer it would have had.
func TestGroupRefusedWholeIsWrittenAlone(t *testing.T) {
	t.Parallel()
	g := newGrouped(t, "PutItem", maxInFlight+3)
	g.gate.failGroup = true
	ctx := t.Context()
	errs := make(chan error, len(g.approvals))
	g.holdAll(ctx, errs)
	for _, a := range g.approvals[maxInFlight:] {
		g.update(ctx, a.ID, errs)
	}
	waitQueued(t, g.s.writes, 3)
	before := g.calls.Counts()
	close(g.gate.release)
	for range g.approvals {
		if err := <-errs; err != nil {
			t.Errorf("Update: %v", err)
		}
	}
	if g.gate.failGroup {
		t.Error("the three waiting writes were not tried as a group")
	}
	// The refused group never reached the SDK (which counts); then each
	// alone.
	if diff := cmp.Diff(map[string]int64{"PutItem": maxInFlight + 3}, g.calls.Since(before)); diff != "" {
		t.Errorf("calls after the release (-want +got):\n%s", diff)
	}
	for _, a := range g.approvals {
		if got, err := New(client, g.s.table).Get(ctx, a.ID); err != nil || got.Status != workflow.StatusClaimed {
			t.Errorf("approval %s is %s (%v), want claimed", a.ID, got.Status, err)
		}
	}
}

// Reads that come while maxInFlight are in flight go as one consistent
// BatchGetItem: each gets its approval (a second read of one shares its
// answer), a missing one ENOTFOUND, and a key DynamoDB left unprocessed is
// read again alone.
func TestReadsThatWaitGoAsOneBatch(t *testing.T) {
	t.Parallel()
	g := newGrouped(t, "GetItem", maxInFlight+4)
	ctx := t.Context()
	type answer struct {
		id  string
		got workflow.Approval
		err error
	}
	answers := make(chan answer, 16)
	get := func(id string) {
		go func() {
			a, err := g.s.Get(ctx, id)
			answers <- answer{id, a, err}
		}()
	}
	for _, a := range g.approvals[:maxInFlight] {
		get(a.ID)
	}
	for range maxInFlight {
		<-g.gate.entered
	}
	// A claim another replica made meanwhile must be seen: reads are consistent.
	claimed := g.approvals[maxInFlight]
	if _, err := New(client, g.s.table).Update(ctx, claimed.ID, claim); err != nil {
		t.Fatal(err)
	}
	ids := []string{claimed.ID, g.approvals[maxInFlight+1].ID, g.approvals[maxInFlight+1].ID, g.approvals[maxInFlight+2].ID, g.approvals[maxInFlight+3].ID, "missing"}
	g.gate.unprocessed = g.approvals[maxInFlight+3].ID
	for _, id := range ids {
		get(id)
	}
	waitQueued(t, g.s.reads, len(ids))
	before := g.calls.Counts()
	close(g.gate.release)
	for range maxInFlight + len(ids) {
		a := <-answers
		switch {
		case a.id == "missing":
			if workflow.ErrorCode(a.err) != workflow.ENOTFOUND {
				t.Errorf("Get(missing) = %v, want ENOTFOUND", a.err)
			}
		case a.err != nil:
			t.Errorf("Get(%s): %v", a.id, a.err)
		case a.got.ID != a.id:
			t.Errorf("Get(%s) returned approval %s", a.id, a.got.ID)
		case a.id == claimed.ID && a.got.Status != workflow.StatusClaimed:
			t.Errorf("Get(%s) read %s, not the claim made before it", a.id, a.got.Status)
		}
	}
	// The 4 held alone, the batch, the unprocessed key alone.
	if diff := cmp.Diff(map[string]int64{"BatchGetItem": 1, "GetItem": maxInFlight + 1}, g.calls.Since(before)); diff != "" {
		t.Errorf("calls after the release (-want +got):\n%s", diff)
	}
}

// Two writes of one approval are never in one group (DynamoDB refuses a
// transaction that holds two): the second goes after the first and
// finds it claimed.
func TestTwoWritesOfOneApprovalAreNeverGrouped(t *testing.T) {
	t.Parallel()
	g := newGrouped(t, "PutItem", maxInFlight+2)
	ctx := t.Context()
	errs := make(chan error, 16)
	g.holdAll(ctx, errs)
	twice, other := g.approvals[maxInFlight], g.approvals[maxInFlight+1]
	for i, id := range []string{twice.ID, twice.ID, other.ID} {
		g.update(ctx, id, errs)
		waitQueued(t, g.s.writes, i+1)
	}
	close(g.gate.release)
	conflicts := countConflicts(t, errs, maxInFlight+3)
	if conflicts != 1 {
		t.Errorf("%d writes lost their race, want 1 (the second claim)", conflicts)
	}
	for _, a := range g.approvals {
		if got, err := New(client, g.s.table).Get(ctx, a.ID); err != nil || got.Status != workflow.StatusClaimed || got.Attempts != 1 {
			t.Errorf("approval %s: %s, %d attempts (%v); want claimed once", a.ID, got.Status, got.Attempts, err)
		}
	}
}
