// Package awstask holds what the service integrations share: reading a
// Task state's Resource ARN, the SdkHttpMetadata and SdkResponseMetadata
// that Step Functions adds to an optimized integration's result, and the
// shape of the cause Step Functions records for an AWS API error.
package awstask

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// WaitForTaskToken is the callback suffix of an optimized integration's
// resource.
const WaitForTaskToken = ".waitForTaskToken"

// Resource is an optimized integration's resource,
// arn:<partition>:states:<region>:<account>:<service>:<action>[.<pattern>].
type Resource struct {
	Service string // "lambda"
	Action  string // "invoke"
	Pattern string // "", ".waitForTaskToken", ".sync" or ".sync:2"
}

// ParseResource reads an optimized integration's resource ARN; ok is false
// for anything else (a Lambda function ARN, an activity).
func ParseResource(arn string) (r Resource, ok bool) {
	parts := strings.SplitN(arn, ":", 7)
	if len(parts) != 7 || parts[0] != "arn" || parts[2] != "states" || parts[5] == "" {
		return Resource{}, false
	}
	action, pattern := parts[6], ""
	if i := strings.IndexByte(action, '.'); i >= 0 {
		action, pattern = action[:i], action[i:]
	}
	return Resource{Service: parts[5], Action: action, Pattern: pattern}, action != ""
}

// Header is one HTTP response header as Step Functions reports it.
type Header struct{ Name, Value string }

// Metadata returns the SdkHttpMetadata and SdkResponseMetadata fields Step
// Functions adds to an optimized integration's result, to be merged into
// it.
func Metadata(status int, requestID string, headers []Header) map[string]any {
	all := make(map[string]any, len(headers))
	flat := make(map[string]any, len(headers))
	for _, h := range headers {
		all[h.Name] = []any{h.Value}
		flat[h.Name] = h.Value
	}
	return map[string]any{
		"SdkHttpMetadata": map[string]any{
			"AllHttpHeaders": all,
			"HttpHeaders":    flat,
			"HttpStatusCode": status,
		},
		"SdkResponseMetadata": map[string]any{"RequestId": requestID},
	}
}

// Date is the Date header's value for now.
func Date() string { return time.Now().UTC().Format(http.TimeFormat) }

// ServiceErrorCause is the cause Step Functions records for an AWS API
// error, in the AWS SDK for Java's words, e.g. "Function not found: …
// (Service: AWSLambda; Status Code: 404; Error Code:
// ResourceNotFoundException; Request ID: …; Proxy: null)".
func ServiceErrorCause(message, service string, status int, code, requestID string) string {
	return fmt.Sprintf("%s (Service: %s; Status Code: %d; Error Code: %s; Request ID: %s; Proxy: null)",
		message, service, status, code, requestID)
}

// NewRequestID returns a random UUID-shaped request ID.
func NewRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// TraceID returns an X-Amzn-Trace-Id value as Lambda reports it.
func TraceID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("root=1-%08x-%s;sampled=0", time.Now().Unix(), hex.EncodeToString(b[:]))
}
