// Package dynamo stores approvals in one DynamoDB table: the workflow.Store
// on DynamoDB. The table schema lives here, once (TableSchema); deploy/
// creates the same table for production, and a test keeps the two equal.
//
// Every change to an approval is a compare-and-swap: the store applies the
// change in Go to the version it last saw (reading the item if it has not
// seen it) and writes it back only if the stored version is unchanged. So the rules (which status may follow which, which queue an
// approval is on) are the domain's, and DynamoDB makes them atomic.
package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/sfnapprovals/approvals/workflow"
)

// ItemAPI is the part of the DynamoDB API the Store uses;
// *dynamodb.Client implements it.
type ItemAPI interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	BatchGetItem(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// Store is a workflow.Store on a DynamoDB table created with TableSchema.
// It is safe for concurrent use, also by many processes.
type Store struct {
	client    ItemAPI
	table     string
	pageSize  int // items per Query page in List
	versions  *versions
	retention time.Duration // of the audit records written with the changes
	marks     marks         // of user groups in the groups item
	reads     *calls[*groupRead]
	writes    *calls[*groupWrite]
}

var _ workflow.Store = (*Store)(nil)

// Option changes a Store.
type Option func(*Store)

// AuditRetention sets how long the audit records the Store writes with
// each change are kept (workflow.DefaultAuditRetention by default); the
// AuditLog reading them should keep its own records as long.
func AuditRetention(d time.Duration) Option {
	return func(s *Store) { s.retention = d }
}

// New returns a Store on the table. Every change it writes carries the
// audit events the change recorded: they are in the audit trail the
// moment the change is (see write.go), and the approval it returns has
// an empty AuditOutbox.
func New(client ItemAPI, table string, opts ...Option) *Store {
	s := &Store{client: client, table: table, pageSize: 100, versions: newVersions(2000), retention: workflow.DefaultAuditRetention}
	s.reads = &calls[*groupRead]{limit: maxInFlight, take: takeReads, run: s.readGroup}
	s.writes = &calls[*groupWrite]{limit: maxInFlight, take: takeWrites, run: s.writeGroup}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Get returns the approval with the ID, read consistently. A missing
// approval is an ENOTFOUND error.
func (s *Store) Get(ctx context.Context, id string) (workflow.Approval, error) {
	r, err := s.get(ctx, id)
	return r.a, err
}

// get reads the approval's record, consistently.
func (s *Store) get(ctx context.Context, id string) (record, error) {
	if id == "" {
		return record{}, notFound(id)
	}
	item, err := s.getItem(ctx, id)
	if err != nil {
		return record{}, fmt.Errorf("read approval %s: %w", id, err)
	}
	if !isApproval(item) {
		return record{}, notFound(id)
	}
	r, err := readRecord(item)
	if err == nil {
		s.versions.put(r)
	}
	return r, err
}

// maxWriteAttempts bounds how often modify retries an approval that keeps
// changing between its read and its write.
const maxWriteAttempts = 10

// Update implements workflow.Store.Update with a compare-and-swap on the
// item's version (modify).
func (s *Store) Update(ctx context.Context, id string, change func(*workflow.Approval) error) (workflow.Approval, error) {
	return s.modify(ctx, id, "update", change)
}

// modify applies change to the approval with the ID and stores the result
// if nobody changed the approval in between; otherwise it applies change to
// the newer version, which change may refuse (ECONFLICT). It returns the
// approval as stored. It starts from the version this process last saw,
// if any; a refusal or "unchanged" judged on that remembered version is
// confirmed against a fresh read, so only the stored item decides.
func (s *Store) modify(ctx context.Context, id, what string, change func(*workflow.Approval) error) (workflow.Approval, error) {
	current, remembered := s.versions.get(id)
	if !remembered {
		var err error
		if current, err = s.get(ctx, id); err != nil {
			return workflow.Approval{}, err
		}
	}
	for attempt := range maxWriteAttempts {
		next := current.a.Clone()
		err := change(&next)
		if err != nil && remembered {
			remembered = false
			if current, err = s.get(ctx, id); err != nil {
				return workflow.Approval{}, err
			}
			continue
		}
		switch {
		case errors.Is(err, workflow.ErrUnchanged):
			return current.a, nil
		case err != nil:
			return workflow.Approval{}, err
		}
		stored, err := s.commit(ctx, current, next)
		var newer *changed
		switch {
		case err == nil:
			s.versions.put(stored)
			return stored.a, nil
		case !errors.As(err, &newer):
			s.versions.forget(id)
			return workflow.Approval{}, fmt.Errorf("%s approval %s: %w", what, id, err)
		case newer.item == nil:
			// Another write to it was in progress: read what it left.
			if err := backoff(ctx, attempt+1); err != nil {
				return workflow.Approval{}, fmt.Errorf("%s approval %s: %w", what, id, err)
			}
			remembered = false
			if current, err = s.get(ctx, id); err != nil {
				return workflow.Approval{}, err
			}
			continue
		case !isApproval(newer.item):
			s.versions.forget(id)
			return workflow.Approval{}, notFound(id)
		}
		remembered = false
		if current, err = readRecord(newer.item); err != nil {
			return workflow.Approval{}, err
		}
		s.versions.put(current)
	}
	return workflow.Approval{}, fmt.Errorf("%s approval %s: it changed under every one of %d attempts", what, id, maxWriteAttempts)
}

func notFound(id string) error {
	return workflow.Errorf(workflow.ENOTFOUND, "no approval %s", id)
}
