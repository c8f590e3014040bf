package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/workflow"
)

// What rides with an approval's write. A change is one conditional write of
// the approval's item; when the change recorded audit events or changed who
// may decide it, the write is a transaction that also puts the events'
// audit records and the history entries of the people who acted, and puts
// or deletes the approval's decider entries (and moves its count, see
// schedule.go). So the audit trail and the index of who may decide never
// lag the approval by more than a write of its own, and a decision waits
// on no write for them:
//
//   - the writes of a decision (the claim, and the outcome recorded once
//     the execution is resumed) are one conditional PutItem each: their
//     events wait in the record itself (AuditOutbox), written in the same
//     write as the decision, and the decider entries to delete and the
//     count to move wait with them (deferred);
//   - the next write of the approval, which records its message updated
//     (or the first failed update, or the outcome itself when there is no
//     message to update), is the transaction that carries them all.
//
// Decider entries to add (a new request, a hand-over, an escalation) are
// never deferred: without them a person's list would miss the request. A
// deferred entry to delete only costs its decider's list a read of an
// approval that is no longer pending (ListFor reads each whole).
//
// A decider entry ("pend#<decider>#<approval>") is on the queue index under
// "pend#<decider>" by creation time, one for each user or user group that
// may decide the approval (workflow.Approval.Deciders), and one for who
// asked for it ("pend#asked:<requester>"), while it is pending: ListFor reads a reader's entries, never the whole queue. The
// user groups that may decide open approvals are listed in one item
// (groupsID), so a reader's memberships are checked only for them.

const (
	deciderPrefix = "pend#"
	// requesterMark precedes the requester's ID in the entry that lists a
	// pending approval for who asked for it ("pend#asked:<user>#<id>");
	// no Slack ID has a colon, so it never meets a decider's.
	requesterMark = "asked:"
	// groupsID is the item listing the user groups with decider entries:
	// an attribute "g#<group>" each, holding the epoch second until which
	// an approval it may decide can be open.
	groupsID    = "groups#open"
	groupPrefix = "g#"
)

// maxTransactItems is the most items one TransactWriteItems takes.
const maxTransactItems = 100

// maxEventsPerWrite bounds the audit events one write carries (an
// approval's record of an older version may hold many); the rest stay in
// its outbox for its next write.
const maxEventsPerWrite = 40

// deciders are the IDs that have an entry for a while it is pending: who
// may decide it and, marked with requesterMark, who asked for it (for
// ListRequestedBy); nobody once it is not pending.
func deciders(a workflow.Approval) []string {
	if a.Status != workflow.StatusPending {
		return nil
	}
	ids := a.Deciders()
	if a.RequestedBy != "" {
		ids = append(ids, requesterMark+a.RequestedBy)
	}
	return ids
}

func entryKey(decider, approvalID string) map[string]types.AttributeValue {
	return key(deciderPrefix + decider + "#" + approvalID)
}

// entryItem is decider's entry for a.
func entryItem(decider string, a workflow.Approval) map[string]types.AttributeValue {
	item := entryKey(decider, a.ID)
	item[attrQueue] = str(deciderPrefix + decider)
	item[attrQueuedAt] = str(a.CreatedAt.UTC().Format(sortableTime) + "#" + a.ID)
	item[attrApprovalID] = str(a.ID)
	if !a.PurgeAt.IsZero() {
		item[attrPurgeAt] = number(a.PurgeAt.Unix())
	}
	return item
}

// sideWrites are the items that go with writing a over the record before,
// at most room of them: the audit records of a's events (at most
// maxEventsPerWrite), the history entries of the people who acted in
// them, and the decider entries that come or go. It returns the record as
// it is then stored: a without the events written, the entries that then
// exist. Entries to delete that do not fit wait for the next write (a
// reader reads each approval whole; they expire with it).
func (s *Store) sideWrites(before record, a workflow.Approval, room int) (record, []types.TransactWriteItem) {
	items := s.countWrites(before, a)
	put := func(item map[string]types.AttributeValue) {
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: item}})
	}
	was, now := before.entries, deciders(a)
	for _, d := range now {
		if !slices.Contains(was, d) {
			put(entryItem(d, a))
		}
	}
	n := min(len(a.AuditOutbox), maxEventsPerWrite)
	for n > 0 && len(items)+n+len(latestActs(a.AuditOutbox[:n])) > room {
		n--
	}
	events := a.AuditOutbox[:n]
	for _, e := range workflow.WithRecords(a, events) {
		// An audit record only ever adds: never over one that exists.
		items = append(items, types.TransactWriteItem{Put: s.putNew(eventItem(e, s.retention))})
	}
	for _, e := range latestActs(events) {
		put(historyItem(a, e, s.retention))
	}
	entries := slices.Clone(now)
	for _, d := range was {
		switch {
		case slices.Contains(now, d):
		case len(items) == room:
			entries = append(entries, d) // still there
		default:
			items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.table), Key: entryKey(d, a.ID)}})
		}
	}
	if rest := a.AuditOutbox[len(events):]; len(rest) == 0 {
		a.AuditOutbox = nil
	} else {
		a.AuditOutbox = slices.Clone(rest)
	}
	return record{a: a, version: before.version + 1, entries: entries, counted: counted(a)}, items
}

// newGroups are the user groups that may decide a and have no entry in
// before.
func newGroups(before record, a workflow.Approval) []string {
	var groups []string
	for _, d := range deciders(a) {
		if workflow.IsGroupID(d) && !slices.Contains(before.entries, d) {
			groups = append(groups, d)
		}
	}
	return groups
}

// openUntil is the latest a may still be open and listed: its deadline,
// or Step Functions' one-year limit on an execution (and a day's margin).
func openUntil(a workflow.Approval) time.Time {
	if !a.Deadline.IsZero() {
		return a.Deadline
	}
	return a.CreatedAt.Add(366 * 24 * time.Hour)
}

// markGroups records in the groups item that the user groups may decide
// an approval open until until, rounded up to the end of the next UTC day,
// so that a group with steady requests is marked about once a day per
// process (it remembers its marks; a mark a day late costs a member one
// Query a read). A later mark of a group is never moved back. It is
// written beside the approval, outside its transaction (where every
// approval of a group would contend for this one item): a mark without an
// approval costs a reader one Query at most.
func (s *Store) markGroups(ctx context.Context, groups []string, until time.Time) error {
	until = until.UTC().Truncate(24 * time.Hour).Add(48 * time.Hour)
	for _, g := range groups {
		if s.marks.covers(g, until) {
			continue
		}
		_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(s.table),
			Key:                       key(groupsID),
			UpdateExpression:          aws.String("SET #g = :until"),
			ConditionExpression:       aws.String("attribute_not_exists(#g) OR #g < :until"),
			ExpressionAttributeNames:  map[string]string{"#g": groupPrefix + g},
			ExpressionAttributeValues: map[string]types.AttributeValue{":until": number(until.Unix())},
		})
		var later *types.ConditionalCheckFailedException
		if err != nil && !errors.As(err, &later) {
			return fmt.Errorf("list user group %s among the groups that may decide: %w", g, err)
		}
		s.marks.add(g, until)
	}
	return nil
}

// marks remembers until when this process marked each user group.
type marks struct {
	mu    sync.Mutex
	until map[string]time.Time
}

func (m *marks) covers(group string, until time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.until[group].Before(until)
}

func (m *marks) add(group string, until time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.until == nil || len(m.until) > 10000 {
		m.until = map[string]time.Time{}
	}
	if m.until[group].Before(until) {
		m.until[group] = until
	}
}

// changed is commit's answer when the stored approval is no longer the
// version the change was made to: item is the stored one, nil when it has
// to be read again (another write was in progress on it).
type changed struct {
	item map[string]types.AttributeValue
}

func (*changed) Error() string { return "the approval changed meanwhile" }

// recordItem is the item of the record r.
func recordItem(r record) map[string]types.AttributeValue {
	item := encode(r.a, r.version)
	putList(item, attrEntries, r.entries)
	if r.counted >= 0 {
		item[attrCounted] = number(int64(r.counted + 1))
	}
	return item
}

// deferred reports whether the side writes of a write of a wait for a
// later write of it (see above): a claim, or a close whose message is
// still to be updated, that adds no decider entry.
func deferred(before record, a workflow.Approval) bool {
	if !a.Status.Final() && before.counted < 0 {
		return false // a record of an older version, to count now
	}
	for _, d := range deciders(a) {
		if !slices.Contains(before.entries, d) {
			return false
		}
	}
	switch {
	case a.Status == workflow.StatusClaimed:
		return true
	case a.Status.Final():
		return a.MessageTS != "" && !a.MessageSynced && !a.MessageGaveUp && a.MessageAttempts == 0
	}
	return false
}

// commit writes next over the record before, with what rides with it
// (sideWrites) unless that is deferred, if the stored item is still at
// before's version: one PutItem, or one TransactWriteItems when something
// rides with it (under a burst, grouped with other writes: group.go). It
// returns the record as stored, or a *changed error.
func (s *Store) commit(ctx context.Context, before record, next workflow.Approval) (record, error) {
	if groups := newGroups(before, next); len(groups) > 0 {
		if err := s.markGroups(ctx, groups, openUntil(next)); err != nil {
			return record{}, err
		}
	}
	stored, side := s.sideWrites(before, next, maxTransactItems-1)
	if deferred(before, next) {
		stored, side = record{a: next, version: before.version + 1, entries: before.entries, counted: before.counted}, nil
	}
	item := recordItem(stored)
	cond := aws.String("#version = :version")
	names := map[string]string{"#version": attrVersion}
	values := map[string]types.AttributeValue{":version": number(before.version)}
	err := s.writeItems(ctx, append([]types.TransactWriteItem{{Put: &types.Put{
		TableName: aws.String(s.table), Item: item,
		ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}}, side...))
	var failed *types.ConditionalCheckFailedException
	var busy *types.TransactionConflictException
	var canceled *types.TransactionCanceledException
	switch {
	case err == nil:
		return readRecord(item)
	case errors.As(err, &failed):
		return record{}, &changed{item: failed.Item}
	case errors.As(err, &busy):
		return record{}, &changed{}
	case errors.As(err, &canceled):
		switch {
		case reason(canceled, 0) == "ConditionalCheckFailed":
			return record{}, &changed{item: canceled.CancellationReasons[0].Item}
		case slices.ContainsFunc(canceled.CancellationReasons, func(r types.CancellationReason) bool {
			return aws.ToString(r.Code) == "TransactionConflict"
		}):
			return record{}, &changed{}
		case slices.ContainsFunc(canceled.CancellationReasons, func(r types.CancellationReason) bool {
			return aws.ToString(r.Code) == "ConditionalCheckFailed"
		}):
			// Only an audit record's put is conditional besides the record's.
			return record{}, fmt.Errorf("approval %s not written: an audit record it adds exists already, and the audit trail is never overwritten: %w", next.ID, err)
		}
	}
	return record{}, err
}
