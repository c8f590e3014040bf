package dynamo

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/workflow"
)

// AuditStream is the stream the audit archive reads (see lambdas/archive):
// every change of every item, with the item before and after it. The
// deployed table has it (deploy/cloudformation.yaml); TableSchema leaves it
// out, as nothing local reads it but the archive's tests.
func AuditStream() *types.StreamSpecification {
	return &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
}

// AuditRecordPrefix begins the key of every audit record, and of nothing
// else: the archive's event source mapping filters the stream on it.
const AuditRecordPrefix = logPrefix

// IsAuditRecord reports whether an item's key names an audit record.
func IsAuditRecord(id string) bool { return strings.HasPrefix(id, AuditRecordPrefix) }

// ItemKey is the key of a table item: its id ("" if it has none).
func ItemKey(item map[string]types.AttributeValue) string {
	if id, ok := item[attrID].(*types.AttributeValueMemberS); ok {
		return id.Value
	}
	return ""
}

// DecodeAuditRecord returns the event an audit record holds. An item that
// is not an audit record, or does not decode as one, is an error.
func DecodeAuditRecord(item map[string]types.AttributeValue) (workflow.AuditEvent, error) {
	id := ItemKey(item)
	if !IsAuditRecord(id) {
		return workflow.AuditEvent{}, fmt.Errorf("item %q is not an audit record", id)
	}
	d := decoder{item: item}
	e := decodeEvent(&d)
	if d.err != nil {
		return workflow.AuditEvent{}, fmt.Errorf("decode audit record %s: %w", id, d.err)
	}
	if e.ApprovalID == "" || e.Seq < 1 || e.Type == "" || e.At.IsZero() {
		return workflow.AuditEvent{}, errors.New("decode audit record " + id + ": it lacks its approval, sequence number, type or time")
	}
	return e, nil
}
