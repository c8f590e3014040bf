package sqs

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

func sendCall(params string) task.Call {
	return task.Call{Resource: "arn:aws:states:::sqs:sendMessage.waitForTaskToken", Parameters: json.RawMessage(params), StateName: "Notify"}
}

func TestSendMessage(t *testing.T) {
	t.Parallel()
	fake, client, queue := newFakeSQS(t)
	i := New(client)

	params, _ := json.Marshal(map[string]any{
		"QueueUrl":                queue,
		"MessageBody":             map[string]any{"approvalId": "a1", "token": "T", "n": json.Number("1.50")},
		"DelaySeconds":            5,
		"MessageAttributes":       map[string]any{"kind": map[string]any{"DataType": "String", "StringValue": "approval"}},
		"MessageSystemAttributes": map[string]any{"AWSTraceHeader": map[string]any{"DataType": "String", "StringValue": "x"}},
	})
	raw, err := i.Invoke(context.Background(), sendCall(string(params)))
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}

	wantBody := `{"approvalId":"a1","n":1.50,"token":"T"}`
	want := []sentMessage{{
		QueueUrl:          queue,
		MessageBody:       wantBody,
		DelaySeconds:      5,
		MessageAttributes: map[string]map[string]any{"kind": {"DataType": "String", "StringValue": "approval"}},
	}}
	if diff := cmp.Diff(want, fake.messages()); diff != "" {
		t.Errorf("SQS received (-want +got):\n%s", diff)
	}

	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum([]byte(wantBody))
	if got["MD5OfMessageBody"] != hex.EncodeToString(sum[:]) || got["MessageId"] != "5fea7756-0ea4-451a-a703-a558b933e274" {
		t.Errorf("result %s: want SQS's MessageId and MD5OfMessageBody", raw)
	}
	meta := got["SdkHttpMetadata"].(map[string]any)
	headers := meta["HttpHeaders"].(map[string]any)
	if meta["HttpStatusCode"] != 200.0 || headers["Content-Type"] != "application/x-amz-json-1.0" ||
		got["SdkResponseMetadata"].(map[string]any)["RequestId"] != "fake-request" || headers["x-amzn-RequestId"] != "fake-request" {
		t.Errorf("result %s: want Step Functions' SDK metadata with SQS's request ID", raw)
	}
	if _, ok := got["StatusCode"]; ok {
		t.Errorf("result %s has a StatusCode; sqs:sendMessage's has none", raw)
	}
}

func TestSendMessageStringBody(t *testing.T) {
	t.Parallel()
	fake, client, queue := newFakeSQS(t)
	params, _ := json.Marshal(map[string]any{"QueueUrl": queue, "MessageBody": `{"kept":"as text"}`})
	if _, err := New(client).Invoke(context.Background(), sendCall(string(params))); err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	if got := fake.messages()[0].MessageBody; got != `{"kept":"as text"}` {
		t.Errorf("MessageBody = %q, want the string as it is", got)
	}
}

func TestSendMessageErrors(t *testing.T) {
	t.Parallel()
	_, client, queue := newFakeSQS(t)
	i := New(client)
	tests := []struct {
		name, params, wantName, wantCause string
	}{
		{"no queue", `{"QueueUrl":"` + queue + `-gone","MessageBody":"x"}`, "SQS.QueueDoesNotExistException",
			"The specified queue does not exist. (Service: AmazonSQS; Status Code: 400; Error Code: QueueDoesNotExist; Request ID: fake-request; Proxy: null)"},
		// As AWS recorded (localstack/localstack tests/aws/services/stepfunctions/v2/error_handling/
		// test_task_service_sqs.snapshot.json, test_send_message_empty_body): SQS's own refusal.
		{"no body", `{"QueueUrl":"` + queue + `"}`, "SQS.AmazonSQSException",
			"The request must contain the parameter MessageBody. (Service: AmazonSQS; Status Code: 400; Error Code: MissingParameter; Request ID: fake-request; Proxy: null)"},
		{"null body", `{"QueueUrl":"` + queue + `","MessageBody":null}`, "SQS.AmazonSQSException",
			"The request must contain the parameter MessageBody. (Service: AmazonSQS; Status Code: 400; Error Code: MissingParameter; Request ID: fake-request; Proxy: null)"},
		{"no queue URL", `{"MessageBody":"x"}`, "SQS.AmazonSQSException",
			"The request must contain the parameter QueueUrl. (Service: AmazonSQS; Status Code: 400; Error Code: MissingParameter; Request ID: fake-request; Proxy: null)"},
		{"not an object", `"x"`, "States.Runtime", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := i.Invoke(context.Background(), sendCall(tt.params))
			f, ok := err.(*task.Failure)
			if !ok || f.Name != tt.wantName || (tt.wantCause != "" && f.Cause != tt.wantCause) {
				t.Errorf("error = %v; want %s: %s", err, tt.wantName, tt.wantCause)
			}
		})
	}
}

func TestSupports(t *testing.T) {
	t.Parallel()
	i := New(nil)
	for resource, want := range map[string]bool{
		"arn:aws:states:::sqs:sendMessage":                  true,
		"arn:aws:states:::sqs:sendMessage.waitForTaskToken": true,
		"arn:aws:states:::sqs:sendMessage.sync":             false,
		"arn:aws:states:::sqs:receiveMessage":               false,
		"arn:aws:states:::aws-sdk:sqs:sendMessage":          false,
		"arn:aws:states:::lambda:invoke":                    false,
	} {
		if got := i.Supports(resource); got != want {
			t.Errorf("Supports(%s) = %v, want %v", resource, got, want)
		}
	}
}
