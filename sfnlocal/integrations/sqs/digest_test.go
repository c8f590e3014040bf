package sqs

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// The digests of the published examples of SQS's algorithm (the
// aws-md5-of-message-attributes package's documented values).
func TestAttributesDigest(t *testing.T) {
	t.Parallel()
	str := types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String("attribValue 1")}
	num := types.MessageAttributeValue{DataType: aws.String("Number.float"), StringValue: aws.String("4563442423554324324264524243.32543234")}
	bin := types.MessageAttributeValue{DataType: aws.String("Binary"), BinaryValue: []byte("Hello binary world!")}
	tests := []struct {
		name  string
		attrs map[string]types.MessageAttributeValue
		want  string
	}{
		{"string", map[string]types.MessageAttributeValue{"attribName1": str}, "19e27d4e946b072f3f58da80d94fd778"},
		{"custom number type", map[string]types.MessageAttributeValue{"customNumberTypeAttrib": num}, "9fe1b90bbd9965bdf77bac517c7d2495"},
		{"binary", map[string]types.MessageAttributeValue{"binaryAttribute": bin}, "31a92b15d92f8db860eda32aceb656c3"},
		{"several, sorted by name", map[string]types.MessageAttributeValue{"attribName1": str, "customNumberTypeAttrib": num, "binaryAttribute": bin}, "c932db14a896c663f83c260297d594ff"},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := attributesDigest(tt.attrs); got != tt.want {
				t.Errorf("attributesDigest = %s, want %s", got, tt.want)
			}
		})
	}
}

// sendMessage's result carries MD5OfMessageAttributes for a message with
// attributes: SQS's own answer when it gives one, else the digest SQS
// computes; a message without attributes has none.
func TestSendMessageAttributesDigest(t *testing.T) {
	t.Parallel()
	withAttrs := map[string]any{"DataType": "Binary", "BinaryValue": base64.StdEncoding.EncodeToString([]byte("Hello binary world!"))}
	tests := []struct {
		name       string
		sqsDigest  string
		attributes map[string]any
		want       any
	}{
		{"SQS answers with it", "0123456789abcdef0123456789abcdef", map[string]any{"binaryAttribute": withAttrs}, "0123456789abcdef0123456789abcdef"},
		{"a stand-in leaves it out", "", map[string]any{"binaryAttribute": withAttrs}, "31a92b15d92f8db860eda32aceb656c3"},
		{"no attributes", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake, client, queue := newFakeSQS(t)
			fake.attributesDigest = tt.sqsDigest
			params := map[string]any{"QueueUrl": queue, "MessageBody": "hello"}
			if tt.attributes != nil {
				params["MessageAttributes"] = tt.attributes
			}
			p, _ := json.Marshal(params)
			raw, err := New(client).Invoke(context.Background(), sendCall(string(p)))
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if got["MD5OfMessageAttributes"] != tt.want {
				t.Errorf("MD5OfMessageAttributes = %v, want %v (result %s)", got["MD5OfMessageAttributes"], tt.want, raw)
			}
		})
	}
}
