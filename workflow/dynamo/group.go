package dynamo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Grouped calls. Under a burst (hundreds of clicks at once), the reads and
// writes of many decisions wait on the same table, and DynamoDB and the
// SDK cost about as much per call as per item. So a Store keeps at most
// maxInFlight reads and maxInFlight writes of approvals in flight; what
// arrives while they are all busy waits for the next one to end and goes
// with it, grouped: reads as one BatchGetItem (read consistently, as a
// lone GetItem is), writes as one TransactWriteItems. With calls to spare
// every read and write goes alone, at once, exactly as it would without
// grouping; under a burst a call waits while the calls before it are in
// flight (one group of up to 100 per call that ends).
//
// A group's answer is each call's own: a write whose condition fails gets
// the cancellation reasons of its own items (as if it had been a
// transaction alone), the others of its group go again at once; a read
// whose key DynamoDB left unprocessed, and every call of a group that
// failed otherwise, goes again alone, so its answer is the one it would
// have had.
// A grouped write costs what a transaction does (twice a lone PutItem's
// write capacity); it never holds two writes of the same item.
const maxInFlight = 4

const (
	// maxGroupReads is the most keys one BatchGetItem takes.
	maxGroupReads = 100
	// maxGroupBytes bounds the items of a grouped write, well below the
	// 4 MB a transaction may hold.
	maxGroupBytes = 1 << 20
	// groupTimeout bounds a grouped call, which outlives the callers that
	// gave up waiting for it.
	groupTimeout = 30 * time.Second
)

// calls lets at most limit calls run at once and hands what waits to run,
// a group at a time, as a call ends.
type calls[T comparable] struct {
	mu    sync.Mutex
	busy  int
	limit int
	queue []T
	// take picks the group to run next from queue (never empty); it
	// returns the group and what stays queued, in order.
	take func(queue []T) (group, rest []T)
	// run runs a group, holding a call; it must answer every member.
	run func(group []T)
}

// start reports whether a call may run now; if not, it queues p for a
// group, which run answers.
func (c *calls[T]) start(p T) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy < c.limit {
		c.busy++
		return true
	}
	c.queue = append(c.queue, p)
	return false
}

// done ends a call: the next group, if any waits, runs in its place.
func (c *calls[T]) done() {
	c.mu.Lock()
	if len(c.queue) == 0 {
		c.busy--
		c.mu.Unlock()
		return
	}
	group, rest := c.take(c.queue)
	c.queue = rest
	c.mu.Unlock()
	go func() {
		defer c.done()
		c.run(group)
	}()
}

// drop takes p off the queue if it is still there (not yet in a group).
func (c *calls[T]) drop(p T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := slices.Index(c.queue, p); i >= 0 {
		c.queue = slices.Delete(c.queue, i, i+1)
	}
}

// A groupRead is one read waiting for a group.
type groupRead struct {
	id   string
	done chan readAnswer
}

type readAnswer struct {
	item  map[string]types.AttributeValue // nil: no such item
	alone bool                            // read it again, alone
}

// getItem reads the item with the ID, consistently: alone, or grouped
// with others while maxInFlight reads are in flight.
func (s *Store) getItem(ctx context.Context, id string) (map[string]types.AttributeValue, error) {
	r := &groupRead{id: id, done: make(chan readAnswer, 1)}
	if s.reads.start(r) {
		defer s.reads.done()
		return s.getAlone(ctx, id)
	}
	select {
	case a := <-r.done:
		if a.alone {
			return s.getAlone(ctx, id)
		}
		return a.item, nil
	case <-ctx.Done():
		s.reads.drop(r)
		return nil, ctx.Err()
	}
}

func (s *Store) getAlone(ctx context.Context, id string) (map[string]types.AttributeValue, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            key(id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

// takeReads groups up to maxGroupReads different keys; more reads of a
// key in the group share its answer.
func takeReads(queue []*groupRead) (group, rest []*groupRead) {
	ids := map[string]bool{}
	for _, r := range queue {
		if !ids[r.id] && len(ids) == maxGroupReads {
			rest = append(rest, r)
			continue
		}
		ids[r.id] = true
		group = append(group, r)
	}
	return group, rest
}

// readGroup reads a group's keys with one BatchGetItem.
func (s *Store) readGroup(group []*groupRead) {
	ctx, cancel := context.WithTimeout(context.Background(), groupTimeout)
	defer cancel()
	var keys []map[string]types.AttributeValue
	seen := map[string]bool{}
	for _, r := range group {
		if !seen[r.id] {
			seen[r.id] = true
			keys = append(keys, key(r.id))
		}
	}
	out, err := s.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		s.table: {Keys: keys, ConsistentRead: aws.Bool(true)},
	}})
	if err != nil {
		for _, r := range group {
			r.done <- readAnswer{alone: true}
		}
		return
	}
	found := map[string]map[string]types.AttributeValue{}
	for _, item := range out.Responses[s.table] {
		if id, ok := item[attrID].(*types.AttributeValueMemberS); ok {
			found[id.Value] = item
		}
	}
	unprocessed := map[string]bool{}
	for _, k := range out.UnprocessedKeys[s.table].Keys {
		if id, ok := k[attrID].(*types.AttributeValueMemberS); ok {
			unprocessed[id.Value] = true
		}
	}
	for _, r := range group {
		r.done <- readAnswer{item: found[r.id], alone: unprocessed[r.id]}
	}
}

// A groupWrite is one write waiting for a group: its items, the first
// the approval's conditional put.
type groupWrite struct {
	items []types.TransactWriteItem
	keys  []string
	size  int
	done  chan writeAnswer
}

type writeAnswer struct {
	err   error
	alone bool // write it again, alone
}

// writeItems writes the items (the approval's conditional put first, then
// what rides with it) all or none: one PutItem for a put alone, else one
// TransactWriteItems, alone or grouped with others while maxInFlight
// writes are in flight. Its errors are those of a call of its own.
func (s *Store) writeItems(ctx context.Context, items []types.TransactWriteItem) error {
	w := &groupWrite{items: items, keys: itemKeys(items), size: itemsSize(items), done: make(chan writeAnswer, 1)}
	if s.writes.start(w) {
		defer s.writes.done()
		return s.writeAlone(ctx, items)
	}
	select {
	case a := <-w.done:
		if a.alone {
			return s.writeAlone(ctx, items)
		}
		return a.err
	case <-ctx.Done():
		s.writes.drop(w)
		return ctx.Err()
	}
}

func (s *Store) writeAlone(ctx context.Context, items []types.TransactWriteItem) error {
	if len(items) == 1 && items[0].Put != nil {
		p := items[0].Put
		_, err := s.client.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: p.TableName, Item: p.Item, ConditionExpression: p.ConditionExpression,
			ExpressionAttributeNames: p.ExpressionAttributeNames, ExpressionAttributeValues: p.ExpressionAttributeValues,
			ReturnValuesOnConditionCheckFailure: p.ReturnValuesOnConditionCheckFailure,
		})
		return err
	}
	_, err := s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

// takeWrites groups writes in order while they fit one transaction and
// touch different items.
func takeWrites(queue []*groupWrite) (group, rest []*groupWrite) {
	keys := map[string]bool{}
	n, size := 0, 0
	for _, w := range queue {
		fits := len(group) == 0 || n+len(w.items) <= maxTransactItems && size+w.size <= maxGroupBytes
		if fits && !slices.ContainsFunc(w.keys, func(k string) bool { return keys[k] }) {
			group = append(group, w)
			n, size = n+len(w.items), size+w.size
			for _, k := range w.keys {
				keys[k] = true
			}
			continue
		}
		rest = append(rest, w)
	}
	return group, rest
}

// writeGroup writes a group with one TransactWriteItems (a lone write if
// it is one). When DynamoDB cancels it for some of its writes, those get
// their answers and the others go again at once, as the next call.
func (s *Store) writeGroup(group []*groupWrite) {
	ctx, cancel := context.WithTimeout(context.Background(), groupTimeout)
	defer cancel()
	for len(group) > 1 {
		var items []types.TransactWriteItem
		for _, w := range group {
			items = append(items, w.items...)
		}
		_, err := s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		var canceled *types.TransactionCanceledException
		switch {
		case err == nil:
			for _, w := range group {
				w.done <- writeAnswer{}
			}
			return
		case !errors.As(err, &canceled) || len(canceled.CancellationReasons) != len(items):
			for _, w := range group {
				w.done <- writeAnswer{alone: true}
			}
			return
		}
		reasons, again := canceled.CancellationReasons, group[:0:0]
		for _, w := range group {
			own := reasons[:len(w.items)]
			reasons = reasons[len(w.items):]
			if a, innocent := answerFor(own); innocent {
				again = append(again, w)
			} else {
				w.done <- a
			}
		}
		if len(again) == len(group) {
			// Cancelled for none of its writes: no reason to try it again whole.
			for _, w := range group {
				w.done <- writeAnswer{alone: true}
			}
			return
		}
		group = again
	}
	if len(group) == 1 {
		group[0].done <- writeAnswer{err: s.writeAlone(ctx, group[0].items)}
	}
}

// answerFor is the answer of a grouped write that DynamoDB cancelled, from
// the reasons of its own items; innocent if it was cancelled for others.
func answerFor(own []types.CancellationReason) (a writeAnswer, innocent bool) {
	mine := false
	for _, r := range own {
		switch aws.ToString(r.Code) {
		case "", "None":
		case "ConditionalCheckFailed", "TransactionConflict":
			mine = true
		default:
			return writeAnswer{alone: true}, false
		}
	}
	if !mine {
		return writeAnswer{}, true
	}
	return writeAnswer{err: &types.TransactionCanceledException{
		Message:             aws.String(fmt.Sprintf("Transaction cancelled, please refer cancellation reasons for specific reasons %s", codes(own))),
		CancellationReasons: own,
	}}, false
}

func codes(reasons []types.CancellationReason) string {
	var cs []string
	for _, r := range reasons {
		cs = append(cs, cmp.Or(aws.ToString(r.Code), "None"))
	}
	return fmt.Sprint(cs)
}

// itemKeys are the IDs of the items the writes touch.
func itemKeys(items []types.TransactWriteItem) []string {
	var ids []string
	for _, it := range items {
		var k map[string]types.AttributeValue
		switch {
		case it.Put != nil:
			k = it.Put.Item
		case it.Update != nil:
			k = it.Update.Key
		case it.Delete != nil:
			k = it.Delete.Key
		}
		if id, ok := k[attrID].(*types.AttributeValueMemberS); ok {
			ids = append(ids, id.Value)
		}
	}
	return ids
}

// itemsSize is about the bytes the items' attributes take (names and
// values, as DynamoDB counts item size).
func itemsSize(items []types.TransactWriteItem) int {
	n := 0
	for _, it := range items {
		if it.Put != nil {
			n += attributesSize(it.Put.Item)
		}
		n += 100 // keys, expressions
	}
	return n
}

func attributesSize(m map[string]types.AttributeValue) int {
	n := 0
	for k, v := range m {
		n += len(k) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return len(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberSS:
		return lengths(v.Value)
	case *types.AttributeValueMemberNS:
		return lengths(v.Value)
	case *types.AttributeValueMemberBS:
		return lengths(v.Value)
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		return 3 + attributesSize(v.Value)
	}
	return 1
}

func lengths[T string | []byte](values []T) int {
	n := 0
	for _, v := range values {
		n += len(v)
	}
	return n
}
