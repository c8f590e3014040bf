package sqs

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
)

// sentMessage is a SendMessage request as the fake SQS received it.
type sentMessage struct {
	QueueUrl          string
	MessageBody       string
	DelaySeconds      int
	MessageGroupId    string
	MessageAttributes map[string]map[string]any
}

// fakeSQS serves SendMessage in SQS's JSON protocol (awsJson1_0,
// X-Amz-Target: AmazonSQS.SendMessage) for the queues it knows, and
// records what it received. Like SQS, it refuses a request without
// QueueUrl or MessageBody with MissingParameter.
type fakeSQS struct {
	queues map[string]bool // queue URL → exists
	// attributesDigest, when set, is the MD5OfMessageAttributes it answers
	// a message with attributes with; unset, it leaves it out, as some
	// local SQS stand-ins do.
	attributesDigest string

	mu   sync.Mutex
	sent []sentMessage
}

// newFakeSQS starts a fake SQS on 127.0.0.1 with one queue at
// <endpoint>/123456789012/approvals, and returns it with a real
// aws-sdk-go-v2 client pointed at it.
func newFakeSQS(t *testing.T) (*fakeSQS, *awssqs.Client, string) {
	t.Helper()
	f := &fakeSQS{queues: map[string]bool{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	queue := srv.URL + "/123456789012/approvals"
	f.queues[queue] = true
	client := awssqs.New(awssqs.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(srv.URL),
		Credentials:      credentials.NewStaticCredentialsProvider("AKIDLOCAL", "local", ""),
		RetryMaxAttempts: 1,
	})
	return f, client, queue
}

func (f *fakeSQS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("x-amzn-RequestId", "fake-request")
	if r.Method != http.MethodPost || r.URL.Path != "/" ||
		r.Header.Get("X-Amz-Target") != "AmazonSQS.SendMessage" ||
		r.Header.Get("Content-Type") != "application/x-amz-json-1.0" {
		writeError(w, http.StatusBadRequest, "com.amazonaws.sqs#UnsupportedOperation", "the fake serves SendMessage in the JSON protocol only")
		return
	}
	var m sentMessage
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		writeError(w, http.StatusBadRequest, "com.amazonaws.sqs#InvalidMessageContents", err.Error())
		return
	}
	for _, required := range []struct{ name, value string }{{"QueueUrl", m.QueueUrl}, {"MessageBody", m.MessageBody}} {
		if required.value == "" {
			w.Header().Set("x-amzn-query-error", "MissingParameter;Sender")
			writeError(w, http.StatusBadRequest, "com.amazonaws.sqs#MissingParameter", "The request must contain the parameter "+required.name+".")
			return
		}
	}
	if !f.queues[m.QueueUrl] {
		writeError(w, http.StatusBadRequest, "com.amazonaws.sqs#QueueDoesNotExist", "The specified queue does not exist.")
		return
	}
	f.mu.Lock()
	f.sent = append(f.sent, m)
	f.mu.Unlock()
	sum := md5.Sum([]byte(m.MessageBody))
	answer := map[string]string{
		"MD5OfMessageBody": hex.EncodeToString(sum[:]),
		"MessageId":        "5fea7756-0ea4-451a-a703-a558b933e274",
	}
	if f.attributesDigest != "" && len(m.MessageAttributes) > 0 {
		answer["MD5OfMessageAttributes"] = f.attributesDigest
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	_ = json.NewEncoder(w).Encode(answer)
}

func (f *fakeSQS) messages() []sentMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sentMessage(nil), f.sent...)
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": typ, "message": msg})
}
