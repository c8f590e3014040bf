package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// The source and detail-type of the events the handler acts on, as Step
// Functions sends them to EventBridge.
const (
	Source     = "aws.states"
	DetailType = "Step Functions Execution Status Change"
)

// statusChange is the part of the event document the handler reads. Every
// other member (input, output, error, cause, …) is ignored and never
// logged: input and output are the workflow's data.
type statusChange struct {
	Source     *string `json:"source"`
	DetailType *string `json:"detail-type"`
	Detail     *struct {
		ExecutionArn *string         `json:"executionArn"`
		Status       *string         `json:"status"`
		StopDate     json.RawMessage `json:"stopDate"`
	} `json:"detail"`
}

// parseEvent reads the execution an execution status change event is
// about. Its errors say what is wrong without quoting the event.
func parseEvent(payload []byte) (workflow.Execution, error) {
	var ev statusChange
	dec := json.NewDecoder(bytes.NewReader(payload))
	if err := dec.Decode(&ev); err != nil {
		return workflow.Execution{}, errors.New("the event is not a JSON object of the expected shape")
	}
	if dec.More() {
		return workflow.Execution{}, errors.New("the event has data after its JSON object")
	}
	switch {
	case ev.Source == nil || *ev.Source != Source:
		return workflow.Execution{}, fmt.Errorf("source is %s, want %q", quoted(ev.Source), Source)
	case ev.DetailType == nil || *ev.DetailType != DetailType:
		return workflow.Execution{}, fmt.Errorf("detail-type is %s, want %q", quoted(ev.DetailType), DetailType)
	case ev.Detail == nil:
		return workflow.Execution{}, errors.New("the event has no detail object")
	case ev.Detail.ExecutionArn == nil || !workflow.IsExecutionARN(*ev.Detail.ExecutionArn):
		return workflow.Execution{}, errors.New("detail.executionArn is not a Step Functions execution ARN")
	case ev.Detail.Status == nil || !workflow.ExecutionStatus(*ev.Detail.Status).Known():
		return workflow.Execution{}, fmt.Errorf("detail.status is %s, not an execution status", quoted(ev.Detail.Status))
	}
	stopped, err := stopDate(ev.Detail.StopDate)
	if err != nil {
		return workflow.Execution{}, err
	}
	return workflow.Execution{ARN: *ev.Detail.ExecutionArn, Status: workflow.ExecutionStatus(*ev.Detail.Status), StoppedAt: stopped}, nil
}

// stopDate reads detail.stopDate: epoch milliseconds, or null (absent)
// while the execution runs.
func stopDate(raw json.RawMessage) (time.Time, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return time.Time{}, nil
	}
	ms, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || ms <= 0 || ms > 1e15 {
		return time.Time{}, errors.New("detail.stopDate is not a time in epoch milliseconds")
	}
	return time.UnixMilli(int64(ms)).UTC(), nil
}

// quoted shows a member's value, cut short, or says it is missing.
func quoted(s *string) string {
	if s == nil {
		return "missing"
	}
	v := *s
	if r := []rune(v); len(r) > 60 {
		v = string(r[:60]) + "…"
	}
	return strconv.Quote(v)
}
