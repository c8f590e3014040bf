package sfnlocal

import (
	"encoding/json"
	"fmt"
	"unsafe"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// maxPayload is AWS's quota on the data a state or task passes on: 256 KiB
// of JSON text in UTF-8. Past it AWS raises States.DataLimitExceeded for a
// state's output, a state's input after Parameters or Arguments, and a
// task's result.
const maxPayload = 262144

// dataLimitError is States.DataLimitExceeded for what who (a state's name,
// or a task's resource) returned. AWS records the state's error as
// terminal: no Retry or Catch takes it, and no <Type>StateExited is
// recorded. A task's result past the quota is a task failure instead.
func dataLimitError(who string, taskResult bool) *stateError {
	return &stateError{Name: errDataLimitExceeded, taskResult: taskResult,
		Cause: fmt.Sprintf("The state/task '%s' returned a result with a size exceeding the maximum number of bytes service limit.", who)}
}

// payloadText encodes a state's output for its exit event, or fails when
// it exceeds the quota. An output that is the state's own input, unchanged,
// reuses the input's text, so a loop passing one large value on records
// that text once.
func (t *thread) payloadText(output any) (string, *stateError) {
	if t.inputText != "" && sameValue(output, t.input) {
		return t.inputText, nil
	}
	text, ok := jsonvalue.EncodeWithin(output, maxPayload)
	if !ok {
		return "", dataLimitError(t.st.name, false)
	}
	return text, nil
}

// assignedText encodes the variables a state assigns for its exit event,
// or fails when together they exceed the quota.
func (t *thread) assignedText(assigned map[string]any) (map[string]string, *stateError) {
	if len(assigned) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(assigned))
	room := maxPayload
	for k, v := range assigned {
		text, ok := jsonvalue.EncodeWithin(v, room)
		if !ok {
			return nil, dataLimitError(t.st.name, false)
		}
		room -= len(text)
		out[k] = text
	}
	return out, nil
}

// withinPayload fails a state whose effective input (after Parameters or
// Arguments) exceeds the quota.
func (t *thread) withinPayload(v any) *stateError {
	if _, ok := jsonvalue.EncodeWithin(v, maxPayload); !ok {
		return dataLimitError(t.st.name, false)
	}
	return nil
}

// resultText encodes a task's result for its events, or fails the task
// when the result exceeds the quota: AWS names the resource type of an
// integration ("lambda") or a Lambda function's ARN.
func (r *taskRun) resultText(result any) (string, *stateError) {
	text, ok := jsonvalue.EncodeWithin(result, maxPayload)
	if ok {
		return text, nil
	}
	who := r.resType
	if r.lambda || who == "" {
		who = r.t.st.resource
	}
	return "", dataLimitError(who, true)
}

// sameValue reports whether a and b are the same JSON value in memory, so
// one's text is the other's.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case *jsonvalue.Object:
		y, ok := b.(*jsonvalue.Object)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || unsafe.SliceData(x) == unsafe.SliceData(y))
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}
