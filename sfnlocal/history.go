package sfnlocal

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// HistoryEvent is one event of an execution's history. Details is nil or
// a pointer to one of the *EventDetails types; MarshalJSON renders the
// event exactly as GetExecutionHistory does on the wire.
type HistoryEvent struct {
	ID              int64
	PreviousEventID int64
	Timestamp       time.Time
	Type            string
	Details         any
}

// DetailsField returns the JSON member that holds an event type's details,
// e.g. "taskScheduledEventDetails" or, for every <Type>StateEntered,
// "stateEnteredEventDetails".
func DetailsField(eventType string) string {
	switch {
	case strings.HasSuffix(eventType, "StateEntered"):
		return "stateEnteredEventDetails"
	case strings.HasSuffix(eventType, "StateExited"):
		return "stateExitedEventDetails"
	}
	return strings.ToLower(eventType[:1]) + eventType[1:] + "EventDetails"
}

// MarshalJSON renders {"id","previousEventId","timestamp","type",
// "<x>EventDetails"} with the timestamp in epoch seconds.
func (ev HistoryEvent) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"id":`)
	b.WriteString(strconv.FormatInt(ev.ID, 10))
	b.WriteString(`,"previousEventId":`)
	b.WriteString(strconv.FormatInt(ev.PreviousEventID, 10))
	b.WriteString(`,"timestamp":`)
	b.WriteString(strconv.FormatFloat(float64(ev.Timestamp.UnixMilli())/1000, 'f', -1, 64))
	b.WriteString(`,"type":`)
	b.WriteString(strconv.Quote(ev.Type))
	if ev.Details != nil {
		d, err := json.Marshal(ev.Details)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"` + DetailsField(ev.Type) + `":`)
		b.Write(d)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// History event types.
const (
	EventExecutionStarted       = "ExecutionStarted"
	EventExecutionSucceeded     = "ExecutionSucceeded"
	EventExecutionFailed        = "ExecutionFailed"
	EventExecutionAborted       = "ExecutionAborted"
	EventExecutionTimedOut      = "ExecutionTimedOut"
	EventTaskScheduled          = "TaskScheduled"
	EventTaskStarted            = "TaskStarted"
	EventTaskSubmitted          = "TaskSubmitted"
	EventTaskSucceeded          = "TaskSucceeded"
	EventTaskFailed             = "TaskFailed"
	EventTaskTimedOut           = "TaskTimedOut"
	EventLambdaScheduled        = "LambdaFunctionScheduled"
	EventLambdaStarted          = "LambdaFunctionStarted"
	EventLambdaSucceeded        = "LambdaFunctionSucceeded"
	EventLambdaFailed           = "LambdaFunctionFailed"
	EventLambdaTimedOut         = "LambdaFunctionTimedOut"
	EventParallelStateStarted   = "ParallelStateStarted"
	EventParallelStateSucceeded = "ParallelStateSucceeded"
	EventParallelStateFailed    = "ParallelStateFailed"
	EventMapStateStarted        = "MapStateStarted"
	EventMapStateSucceeded      = "MapStateSucceeded"
	EventMapStateFailed         = "MapStateFailed"
	EventMapIterationStarted    = "MapIterationStarted"
	EventMapIterationSucceeded  = "MapIterationSucceeded"
	EventMapIterationFailed     = "MapIterationFailed"
	EventMapIterationAborted    = "MapIterationAborted"
	EventMapRunStarted          = "MapRunStarted"
	EventMapRunSucceeded        = "MapRunSucceeded"
	EventMapRunFailed           = "MapRunFailed"
	EventEvaluationFailed       = "EvaluationFailed"
)

// StateEntered and StateExited build "<Type>StateEntered" and
// "<Type>StateExited", e.g. StateEntered("Task") == "TaskStateEntered".
func StateEntered(stateType string) string { return stateType + "StateEntered" }

// StateExited is the exit event type of a state type.
func StateExited(stateType string) string { return stateType + "StateExited" }

// StateAborted is the event type recorded when a running state is stopped.
func StateAborted(stateType string) string { return stateType + "StateAborted" }

// DataDetails says whether an input or output was truncated.
type DataDetails struct {
	Truncated bool `json:"truncated"`
}

var notTruncated = &DataDetails{}

// ExecutionStartedEventDetails details ExecutionStarted.
type ExecutionStartedEventDetails struct {
	Input        string       `json:"input,omitempty"`
	InputDetails *DataDetails `json:"inputDetails,omitempty"`
	RoleArn      string       `json:"roleArn,omitempty"`
}

// ExecutionSucceededEventDetails details ExecutionSucceeded.
type ExecutionSucceededEventDetails struct {
	Output        string       `json:"output,omitempty"`
	OutputDetails *DataDetails `json:"outputDetails,omitempty"`
}

// ErrorEventDetails details the events that carry an error and a cause:
// ExecutionFailed, ExecutionAborted, ExecutionTimedOut and the
// LambdaFunction failures.
type ErrorEventDetails struct {
	Error string `json:"error,omitempty"`
	Cause string `json:"cause,omitempty"`
}

// StateEnteredEventDetails details every <Type>StateEntered.
type StateEnteredEventDetails struct {
	Name         string       `json:"name"`
	Input        string       `json:"input,omitempty"`
	InputDetails *DataDetails `json:"inputDetails,omitempty"`
}

// StateExitedEventDetails details every <Type>StateExited.
type StateExitedEventDetails struct {
	Name                     string            `json:"name"`
	Output                   string            `json:"output,omitempty"`
	OutputDetails            *DataDetails      `json:"outputDetails,omitempty"`
	AssignedVariables        map[string]string `json:"assignedVariables,omitempty"`
	AssignedVariablesDetails *DataDetails      `json:"assignedVariablesDetails,omitempty"`
}

// TaskScheduledEventDetails details TaskScheduled.
type TaskScheduledEventDetails struct {
	ResourceType       string `json:"resourceType"`
	Resource           string `json:"resource"`
	Region             string `json:"region"`
	Parameters         string `json:"parameters,omitempty"`
	TimeoutInSeconds   *int64 `json:"timeoutInSeconds,omitempty"`
	HeartbeatInSeconds *int64 `json:"heartbeatInSeconds,omitempty"`
}

// TaskEventDetails details TaskStarted.
type TaskEventDetails struct {
	ResourceType string `json:"resourceType"`
	Resource     string `json:"resource"`
}

// TaskOutputEventDetails details TaskSubmitted and TaskSucceeded.
type TaskOutputEventDetails struct {
	ResourceType  string       `json:"resourceType"`
	Resource      string       `json:"resource"`
	Output        string       `json:"output,omitempty"`
	OutputDetails *DataDetails `json:"outputDetails,omitempty"`
}

// TaskErrorEventDetails details TaskFailed and TaskTimedOut.
type TaskErrorEventDetails struct {
	ResourceType string `json:"resourceType"`
	Resource     string `json:"resource"`
	Error        string `json:"error,omitempty"`
	Cause        string `json:"cause,omitempty"`
}

// LambdaFunctionScheduledEventDetails details LambdaFunctionScheduled.
type LambdaFunctionScheduledEventDetails struct {
	Resource         string       `json:"resource"`
	Input            string       `json:"input,omitempty"`
	InputDetails     *DataDetails `json:"inputDetails,omitempty"`
	TimeoutInSeconds *int64       `json:"timeoutInSeconds,omitempty"`
}

// MapStateStartedEventDetails details MapStateStarted.
type MapStateStartedEventDetails struct {
	Length int `json:"length"`
}

// MapIterationEventDetails details the MapIteration* events.
type MapIterationEventDetails struct {
	Name  string `json:"name"`
	Index int    `json:"index"`
}

// MapRunEventDetails details MapRunStarted and MapRunFailed.
type MapRunEventDetails struct {
	MapRunArn string `json:"mapRunArn,omitempty"`
	Error     string `json:"error,omitempty"`
	Cause     string `json:"cause,omitempty"`
}

// EvaluationFailedEventDetails details EvaluationFailed: the error found
// evaluating a state's field, the field (location) and the state.
type EvaluationFailedEventDetails struct {
	Error    string `json:"error,omitempty"`
	Cause    string `json:"cause,omitempty"`
	Location string `json:"location,omitempty"`
	State    string `json:"state"`
}

// withoutData returns details with inputs, outputs and parameters removed,
// as GetExecutionHistory does when includeExecutionData is false.
func withoutData(d any) any {
	switch d := d.(type) {
	case *ExecutionStartedEventDetails:
		c := *d
		c.Input, c.InputDetails = "", nil
		return &c
	case *ExecutionSucceededEventDetails:
		return &ExecutionSucceededEventDetails{}
	case *StateEnteredEventDetails:
		return &StateEnteredEventDetails{Name: d.Name}
	case *StateExitedEventDetails:
		return &StateExitedEventDetails{Name: d.Name}
	case *TaskScheduledEventDetails:
		c := *d
		c.Parameters = ""
		return &c
	case *TaskOutputEventDetails:
		return &TaskOutputEventDetails{ResourceType: d.ResourceType, Resource: d.Resource}
	case *LambdaFunctionScheduledEventDetails:
		c := *d
		c.Input, c.InputDetails = "", nil
		return &c
	}
	return d
}
