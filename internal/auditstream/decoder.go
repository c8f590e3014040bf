// Package auditstream connects the audit archive (lambdas/archive) to the
// approvals table: Decoder reads the table's audit records from stream
// images as Lambda delivers them, and Follow feeds a table's stream to the
// archive where no Lambda runs it (the local stack).
package auditstream

import (
	"fmt"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/lambdas/archive"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
)

// Decoder is the archive's Decoder on the approvals table's items.
type Decoder struct{}

var _ archive.Decoder = Decoder{}

// IsAuditRecord implements archive.Decoder.
func (Decoder) IsAuditRecord(key string) bool { return dynamo.IsAuditRecord(key) }

// Key implements archive.Decoder.
func (Decoder) Key(keys map[string]lambdaevents.DynamoDBAttributeValue) string {
	item, err := toItem(keys)
	if err != nil {
		return ""
	}
	return dynamo.ItemKey(item)
}

// Decode implements archive.Decoder.
func (Decoder) Decode(image map[string]lambdaevents.DynamoDBAttributeValue) (workflow.AuditEvent, error) {
	if len(image) == 0 {
		return workflow.AuditEvent{}, fmt.Errorf("the stream record has no image (is the stream's view NEW_AND_OLD_IMAGES?)")
	}
	item, err := toItem(image)
	if err != nil {
		return workflow.AuditEvent{}, err
	}
	return dynamo.DecodeAuditRecord(item)
}

// toItem converts a stream image, as Lambda delivers it, to the SDK's item.
func toItem(image map[string]lambdaevents.DynamoDBAttributeValue) (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, len(image))
	for name, v := range image {
		av, err := toValue(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		item[name] = av
	}
	return item, nil
}

func toValue(v lambdaevents.DynamoDBAttributeValue) (types.AttributeValue, error) {
	switch v.DataType() {
	case lambdaevents.DataTypeString:
		return &types.AttributeValueMemberS{Value: v.String()}, nil
	case lambdaevents.DataTypeNumber:
		return &types.AttributeValueMemberN{Value: v.Number()}, nil
	case lambdaevents.DataTypeBoolean:
		return &types.AttributeValueMemberBOOL{Value: v.Boolean()}, nil
	case lambdaevents.DataTypeNull:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case lambdaevents.DataTypeBinary:
		return &types.AttributeValueMemberB{Value: v.Binary()}, nil
	case lambdaevents.DataTypeStringSet:
		return &types.AttributeValueMemberSS{Value: v.StringSet()}, nil
	case lambdaevents.DataTypeNumberSet:
		return &types.AttributeValueMemberNS{Value: v.NumberSet()}, nil
	case lambdaevents.DataTypeBinarySet:
		return &types.AttributeValueMemberBS{Value: v.BinarySet()}, nil
	case lambdaevents.DataTypeList:
		list := make([]types.AttributeValue, 0, len(v.List()))
		for i, e := range v.List() {
			av, err := toValue(e)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			list = append(list, av)
		}
		return &types.AttributeValueMemberL{Value: list}, nil
	case lambdaevents.DataTypeMap:
		m, err := toItem(v.Map())
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("attribute value of unknown type %d", v.DataType())
}
