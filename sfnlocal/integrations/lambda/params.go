package lambda

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/sfnapprovals/approvals/sfnlocal/integrations/internal/awstask"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// request is one Invoke call, from lambda:invoke's Parameters or a bare
// function ARN.
type request struct {
	FunctionName   string
	Payload        []byte // the bytes sent to the function
	InvocationType string // RequestResponse (default), Event or DryRun
	Qualifier      string
	ClientContext  string
	LogType        string
}

// parseParameters reads lambda:invoke's Parameters: FunctionName, Payload,
// InvocationType, Qualifier, ClientContext and LogType; others are ignored.
func parseParameters(raw json.RawMessage) (request, error) {
	var p struct {
		FunctionName   string
		Payload        json.RawMessage
		InvocationType string
		Qualifier      string
		ClientContext  string
		LogType        string
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return request{}, &task.Failure{Name: "States.Runtime", Cause: "lambda:invoke: the Parameters are not an object of Invoke's fields: " + err.Error()}
	}
	if p.FunctionName == "" {
		return request{}, &task.Failure{Name: "Lambda.SdkClientException", Cause: "lambda:invoke: the Parameters have no FunctionName"}
	}
	return request{
		FunctionName:   p.FunctionName,
		Payload:        payload(p.Payload),
		InvocationType: p.InvocationType,
		Qualifier:      p.Qualifier,
		ClientContext:  p.ClientContext,
		LogType:        p.LogType,
	}, nil
}

// payload is what the function receives for a Payload value: a missing or
// null Payload sends {}; a string holding JSON text sends that text, any
// other string is sent as a JSON string; other values are sent as they are.
func payload(v json.RawMessage) []byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return []byte("{}")
	}
	var s string
	if v[0] == '"' && json.Unmarshal(v, &s) == nil && json.Valid([]byte(s)) {
		return []byte(s)
	}
	return v
}

// splitFunctionName reads the function name and qualifier from any form
// Invoke accepts: name, name:qualifier, a partial ARN
// (account:function:name) or a full function ARN.
func splitFunctionName(s string) (name, qualifier string) {
	parts := strings.Split(s, ":")
	switch {
	case parts[0] == "arn" && len(parts) >= 7:
		parts = parts[6:]
	case len(parts) >= 3 && parts[1] == "function":
		parts = parts[2:]
	}
	if len(parts) >= 2 {
		return parts[0], parts[1]
	}
	return parts[0], ""
}

// Local functions are reported under this account and region.
const (
	localRegion  = "us-east-1"
	localAccount = "123456789012"
)

func functionARN(name, qualifier string) string {
	arn := "arn:aws:lambda:" + localRegion + ":" + localAccount + ":function:" + name
	if qualifier != "" {
		arn += ":" + qualifier
	}
	return arn
}

// notFound is Lambda's answer for a function nobody registered.
func notFound(name, qualifier string) error {
	return &task.Failure{
		Name:  "Lambda.ResourceNotFoundException",
		Cause: awstask.ServiceErrorCause("Function not found: "+functionARN(name, qualifier), "AWSLambda", 404, "ResourceNotFoundException", awstask.NewRequestID()),
	}
}

func invalidParameter(msg string) error {
	return &task.Failure{
		Name:  "Lambda.InvalidParameterValueException",
		Cause: awstask.ServiceErrorCause(msg, "AWSLambda", 400, "InvalidParameterValueException", awstask.NewRequestID()),
	}
}
