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

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/workflow"
)

// ItemAPI is the part of the DynamoDB API the Store uses;
// *dynamodb.Client implements it.
type ItemAPI interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// Store is a workflow.Store on a DynamoDB table created with TableSchema.
// It is safe for concurrent use, also by many processes.
type Store struct {
	client   ItemAPI
	table    string
	pageSize int // items per Query page in List
	versions *versions
}

var _ workflow.Store = (*Store)(nil)

// New returns a Store on the table.
func New(client ItemAPI, table string) *Store {
	return &Store{client: client, table: table, pageSize: 100, versions: newVersions(2000)}
}

// Get returns the approval with the ID, read consistently. A missing
// approval is an ENOTFOUND error.
func (s *Store) Get(ctx context.Context, id string) (workflow.Approval, error) {
	a, _, err := s.get(ctx, id)
	return a, err
}

// get returns the approval and its item version.
func (s *Store) get(ctx context.Context, id string) (workflow.Approval, int64, error) {
	if id == "" {
		return workflow.Approval{}, 0, notFound(id)
	}
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            key(id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return workflow.Approval{}, 0, fmt.Errorf("read approval %s: %w", id, err)
	}
	if !isApproval(out.Item) {
		return workflow.Approval{}, 0, notFound(id)
	}
	a, version, err := decode(out.Item)
	if err == nil {
		s.versions.put(a, version)
	}
	return a, version, err
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
	current, version, remembered := s.versions.get(id)
	if !remembered {
		var err error
		if current, version, err = s.get(ctx, id); err != nil {
			return workflow.Approval{}, err
		}
	}
	for range maxWriteAttempts {
		next := current.Clone()
		err := change(&next)
		if err != nil && remembered {
			remembered = false
			if current, version, err = s.get(ctx, id); err != nil {
				return workflow.Approval{}, err
			}
			continue
		}
		switch {
		case errors.Is(err, workflow.ErrUnchanged):
			return current, nil
		case err != nil:
			return workflow.Approval{}, err
		}
		item := encode(next, version+1)
		_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
			TableName:                           aws.String(s.table),
			Item:                                item,
			ConditionExpression:                 aws.String("#version = :version"),
			ExpressionAttributeNames:            map[string]string{"#version": attrVersion},
			ExpressionAttributeValues:           map[string]types.AttributeValue{":version": number(version)},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		var failed *types.ConditionalCheckFailedException
		switch {
		case err == nil:
			stored, storedVersion, err := decode(item)
			if err == nil {
				s.versions.put(stored, storedVersion)
			}
			return stored, err
		case !errors.As(err, &failed):
			s.versions.forget(id)
			return workflow.Approval{}, fmt.Errorf("%s approval %s: %w", what, id, err)
		case !isApproval(failed.Item):
			s.versions.forget(id)
			return workflow.Approval{}, notFound(id)
		}
		remembered = false
		if current, version, err = decode(failed.Item); err != nil {
			return workflow.Approval{}, err
		}
		s.versions.put(current, version)
	}
	return workflow.Approval{}, fmt.Errorf("%s approval %s: it changed under every one of %d attempts", what, id, maxWriteAttempts)
}

func notFound(id string) error {
	return workflow.Errorf(workflow.ENOTFOUND, "no approval %s", id)
}
