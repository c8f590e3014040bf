package sqs

import (
	"bytes"
	"encoding/json"

	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// parameters are sqs:sendMessage's Parameters; other fields are ignored,
// as Step Functions drops them.
type parameters struct {
	QueueUrl               *string
	MessageBody            json.RawMessage
	MessageAttributes      map[string]attribute
	DelaySeconds           *int32
	MessageDeduplicationId *string
	MessageGroupId         *string
}

type attribute struct {
	DataType         *string
	StringValue      *string
	BinaryValue      []byte // base64 in JSON
	StringListValues []string
	BinaryListValues [][]byte
}

func parseParameters(raw json.RawMessage) (*awssqs.SendMessageInput, error) {
	var p parameters
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, &task.Failure{Name: "States.Runtime", Cause: "sqs:sendMessage: the Parameters are not an object of SendMessage's fields: " + err.Error()}
	}
	in := &awssqs.SendMessageInput{
		QueueUrl:               p.QueueUrl,
		MessageBody:            messageBody(p.MessageBody),
		MessageDeduplicationId: p.MessageDeduplicationId,
		MessageGroupId:         p.MessageGroupId,
	}
	if p.DelaySeconds != nil {
		in.DelaySeconds = *p.DelaySeconds
	}
	if len(p.MessageAttributes) > 0 {
		in.MessageAttributes = make(map[string]types.MessageAttributeValue, len(p.MessageAttributes))
		for name, a := range p.MessageAttributes {
			in.MessageAttributes[name] = types.MessageAttributeValue{
				DataType:         a.DataType,
				StringValue:      a.StringValue,
				BinaryValue:      a.BinaryValue,
				StringListValues: a.StringListValues,
				BinaryListValues: a.BinaryListValues,
			}
		}
	}
	return in, nil
}

// messageBody is the text sent for a MessageBody value: a string as it is,
// any other JSON value as JSON text; nil when it is missing or null.
func messageBody(v json.RawMessage) *string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	var s string
	if v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return &s
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		s = string(v)
		return &s
	}
	s = b.String()
	return &s
}
