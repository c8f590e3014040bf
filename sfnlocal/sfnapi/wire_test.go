package sfnapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/sfnlocal/sfnapi"
)

// post sends one raw request and decodes the JSON answer.
func post(t *testing.T, url, method, target, body string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), method, url+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("response %d is not a JSON object: %q", resp.StatusCode, raw)
	}
	if resp.Header.Get("x-amzn-RequestId") == "" || resp.Header.Get("Content-Type") != "application/x-amz-json-1.0" {
		t.Errorf("headers = %v", resp.Header)
	}
	return resp, out
}

func TestMalformedRequests(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const sts = "AWSStepFunctions.SendTaskSuccess"
	tests := []struct {
		name, method, target, body string
		code, message              string
	}{
		{"no target", "POST", "", `{}`, "UnknownOperationException", "X-Amz-Target"},
		{"other service", "POST", "DynamoDB_20120810.GetItem", `{}`, "UnknownOperationException", "DynamoDB_20120810.GetItem"},
		{"unsupported operation", "POST", "AWSStepFunctions.CreateActivity", `{}`, "UnknownOperationException", "CreateActivity"},
		{"GET", "GET", sts, ``, "UnknownOperationException", "POST"},
		{"truncated JSON", "POST", sts, `{"taskToken":`, "SerializationException", ""},
		{"empty body", "POST", sts, ``, "SerializationException", ""},
		{"trailing data", "POST", sts, `{} {}`, "SerializationException", ""},
		{"array body", "POST", "AWSStepFunctions.ListStateMachines", `[]`, "SerializationException", "Start of list"},
		{"null body", "POST", "AWSStepFunctions.ListStateMachines", `null`, "SerializationException", ""},
		{"number for a string", "POST", sts, `{"taskToken":5,"output":"{}"}`, "SerializationException", "NUMBER_VALUE can not be converted to a String"},
		{"object for a string", "POST", sts, `{"taskToken":{},"output":"{}"}`, "SerializationException", "Start of structure or map"},
		{"string for an integer", "POST", "AWSStepFunctions.ListStateMachines", `{"maxResults":"5"}`, "SerializationException", "STRING_VALUE can not be converted to an Integer"},
		{"fraction for an integer", "POST", "AWSStepFunctions.ListStateMachines", `{"maxResults":1.5}`, "SerializationException", "Integer"},
		{"string for a boolean", "POST", "AWSStepFunctions.GetExecutionHistory", `{"executionArn":"arn:x","reverseOrder":"yes"}`, "SerializationException", "Boolean"},
		{"missing members", "POST", sts, `{}`, "ValidationException",
			"2 validation errors detected: Value null at 'taskToken' failed to satisfy constraint: Member must not be null; Value null at 'output' failed to satisfy constraint: Member must not be null"},
		{"null member", "POST", "AWSStepFunctions.DescribeExecution", `{"executionArn":null}`, "ValidationException",
			"1 validation error detected: Value null at 'executionArn' failed to satisfy constraint: Member must not be null"},
		{"member names are case-sensitive", "POST", "AWSStepFunctions.StartExecution", `{"StateMachineArn":"arn:aws:states:us-east-1:123456789012:stateMachine:x"}`,
			"ValidationException", "Value null at 'stateMachineArn'"},
		{"create without anything", "POST", "AWSStepFunctions.CreateStateMachine", `{}`, "ValidationException", "3 validation errors detected"},
		{"empty token", "POST", "AWSStepFunctions.SendTaskHeartbeat", `{"taskToken":""}`, "ValidationException",
			"Value at 'taskToken' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"bad enum", "POST", "AWSStepFunctions.ValidateStateMachineDefinition", `{"definition":"{}","severity":"INFO"}`, "ValidationException",
			"Value 'INFO' at 'severity' failed to satisfy constraint: Member must satisfy enum value set: [ERROR, WARNING]"},
		{"negative page size", "POST", "AWSStepFunctions.ListStateMachines", `{"maxResults":-1}`, "ValidationException", "greater than or equal to 0"},
		{"list executions without a machine", "POST", "AWSStepFunctions.ListExecutions", `{}`, "ValidationException", "StateMachine ARN"},
		{"bogus token", "POST", sts, `{"taskToken":"x","output":"{}"}`, "InvalidToken", "Invalid Token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := post(t, f.url, tt.method, tt.target, tt.body)
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("status = %d, want 400", resp.StatusCode)
			}
			if body["__type"] != tt.code || resp.Header.Get("X-Amzn-ErrorType") != tt.code {
				t.Errorf("__type %v, X-Amzn-ErrorType %q; want %s (%v)", body["__type"], resp.Header.Get("X-Amzn-ErrorType"), tt.code, body["message"])
			}
			if msg, _ := body["message"].(string); !strings.Contains(msg, tt.message) || msg == "" {
				t.Errorf("message = %q, want it to contain %q", msg, tt.message)
			}
		})
	}
	// The server is still up and answering.
	if resp, body := post(t, f.url, "POST", "AWSStepFunctions.ListStateMachines", `{}`); resp.StatusCode != http.StatusOK || body["stateMachines"] == nil {
		t.Errorf("ListStateMachines after bad requests = %d %v", resp.StatusCode, body)
	}
}

func TestTooLargeBody(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	body := `{"definition":"` + strings.Repeat("x", 9<<20) + `"}`
	resp, out := post(t, f.url, "POST", "AWSStepFunctions.ValidateStateMachineDefinition", body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || out["__type"] != "SerializationException" {
		t.Errorf("oversized request = %d %v", resp.StatusCode, out)
	}
}

func TestResponsesUseEpochSecondsAndUnknownMembersAreIgnored(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	resp, out := post(t, f.url, "POST", "AWSStepFunctions.CreateStateMachine",
		`{"name":"raw","definition":`+quote(passDef)+`,"roleArn":"`+roleArn+`","tags":[{"key":"a","value":"b"}],"someFutureMember":{"x":1}}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("CreateStateMachine = %d %v", resp.StatusCode, out)
	}
	if got, ok := out["creationDate"].(json.Number); !ok || got.String() != "1748779200" {
		t.Errorf("creationDate = %#v, want the number 1748779200", out["creationDate"])
	}
	resp, out = post(t, f.url, "POST", "AWSStepFunctions.DeleteStateMachine", `{"stateMachineArn":"`+out["stateMachineArn"].(string)+`"}`)
	if resp.StatusCode != http.StatusOK || len(out) != 0 {
		t.Errorf("DeleteStateMachine = %d %v, want 200 {}", resp.StatusCode, out)
	}
}

func TestPanicIsAnInternalFailure(t *testing.T) {
	t.Parallel()
	// With no engine every operation panics.
	srv := httptest.NewServer(sfnapi.NewHandler(nil))
	t.Cleanup(srv.Close)
	for range 2 {
		resp, out := post(t, srv.URL, "POST", "AWSStepFunctions.ListStateMachines", `{}`)
		if resp.StatusCode != http.StatusInternalServerError || out["__type"] != "InternalFailure" {
			t.Errorf("panicking operation = %d %v, want 500 InternalFailure", resp.StatusCode, out)
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
