package lambda

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/internal/awstask"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// response is Invoke's answer, from either backend.
type response struct {
	StatusCode      int    // 200, or 202 for Event and 204 for DryRun
	FunctionError   string // "Handled" or "Unhandled" when the function failed
	ExecutedVersion string // empty for Event and DryRun
	Payload         []byte // the function's output or error document
	RequestID       string
}

// invokeResult is lambda:invoke's result: Invoke's response with Payload
// parsed as JSON, plus Step Functions' SDK metadata.
func (r *response) invokeResult() (json.RawMessage, error) {
	if r.FunctionError != "" {
		return nil, r.failure(reserialized(r.Payload))
	}
	result := awstask.Metadata(r.StatusCode, r.RequestID, r.headers())
	result["Payload"] = decodePayload(r.Payload)
	result["StatusCode"] = r.StatusCode
	if r.ExecutedVersion != "" {
		result["ExecutedVersion"] = r.ExecutedVersion
	}
	return json.Marshal(result)
}

// functionResult is a bare function ARN's result: the function's output.
func (r *response) functionResult() (json.RawMessage, error) {
	if r.FunctionError != "" {
		return nil, r.failure(string(r.Payload))
	}
	return decodePayload(r.Payload), nil
}

// failure names a function error after the error document's errorType,
// or Lambda.Unknown when it has none (a timeout, say), with cause the
// document as Step Functions reports it.
func (r *response) failure(cause string) error {
	var doc struct {
		ErrorType any `json:"errorType"`
	}
	_ = json.Unmarshal(r.Payload, &doc) // a document that is not JSON has no type
	if t, ok := doc.ErrorType.(string); ok && t != "" {
		return &task.Failure{Name: t, Cause: cause}
	}
	return &task.Failure{
		Name:  "Lambda.Unknown",
		Cause: "The cause could not be determined because Lambda did not return an error type. Returned payload: " + cause,
	}
}

// reserialized is a lambda:invoke error document as AWS puts it in the
// cause: parsed and written again compactly, members in their order (a
// Python function's {"errorMessage": "…", "errorType": …} becomes
// {"errorMessage":"…","errorType":…}), as AWS recorded it
// (test_task_service_lambda). A bare function ARN passes the document on
// as the function returned it (test_task_lambda, test_base_scenarios).
// A document that is not JSON is kept as it is.
func reserialized(doc []byte) string {
	v, err := jsonvalue.Decode(doc)
	if err != nil {
		return string(doc)
	}
	return jsonvalue.Encode(v)
}

// headers are the response headers Lambda sends, as Step Functions reports them.
func (r *response) headers() []awstask.Header {
	h := []awstask.Header{
		{Name: "Connection", Value: "keep-alive"},
		{Name: "Content-Length", Value: strconv.Itoa(len(r.Payload))},
		{Name: "Content-Type", Value: "application/json"},
		{Name: "Date", Value: awstask.Date()},
		{Name: "x-amzn-RequestId", Value: r.RequestID},
		{Name: "X-Amzn-Trace-Id", Value: awstask.TraceID()},
	}
	if r.ExecutedVersion != "" {
		h = append(h,
			awstask.Header{Name: "X-Amz-Executed-Version", Value: r.ExecutedVersion},
			awstask.Header{Name: "x-amzn-Remapped-Content-Length", Value: "0"})
	}
	return h
}

// decodePayload parses the function's output as JSON; output that is not
// JSON (or none, after Event) becomes a JSON string.
func decodePayload(p []byte) json.RawMessage {
	if len(bytes.TrimSpace(p)) > 0 && json.Valid(p) {
		return compact(p)
	}
	s, _ := json.Marshal(string(p))
	return s
}

func compact(p []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, p); err != nil {
		return p
	}
	return b.Bytes()
}

// executedVersion is the version a qualifier resolves to in process: a
// version number runs as itself, anything else as $LATEST.
func executedVersion(qualifier string) string {
	if _, err := strconv.ParseUint(qualifier, 10, 64); err == nil {
		return qualifier
	}
	return "$LATEST"
}
