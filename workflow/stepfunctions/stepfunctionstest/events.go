package stepfunctionstest

import (
	"strconv"
	"time"
)

// historyEvent is one GetExecutionHistory event as AWS writes it.
type historyEvent struct {
	ID              int64        `json:"id"`
	PreviousEventID int64        `json:"previousEventId"`
	Timestamp       epochSeconds `json:"timestamp"`
	Type            string       `json:"type"`

	ExecutionStarted *executionStartedDetails `json:"executionStartedEventDetails,omitempty"`
	StateEntered     *stateDetails            `json:"stateEnteredEventDetails,omitempty"`
	StateExited      *stateDetails            `json:"stateExitedEventDetails,omitempty"`
	TaskScheduled    *taskScheduledDetails    `json:"taskScheduledEventDetails,omitempty"`
	TaskStarted      *taskResource            `json:"taskStartedEventDetails,omitempty"`
	TaskSubmitted    *taskOutputDetails       `json:"taskSubmittedEventDetails,omitempty"`
	TaskSucceeded    *taskOutputDetails       `json:"taskSucceededEventDetails,omitempty"`
	TaskFailed       *taskErrorDetails        `json:"taskFailedEventDetails,omitempty"`
	TaskTimedOut     *taskErrorDetails        `json:"taskTimedOutEventDetails,omitempty"`
}

type dataDetails struct {
	Truncated bool `json:"truncated"`
}

type executionStartedDetails struct {
	Input        *string      `json:"input,omitempty"`
	InputDetails *dataDetails `json:"inputDetails,omitempty"`
	RoleArn      string       `json:"roleArn"`
}

type stateDetails struct {
	Name          string       `json:"name"`
	Input         *string      `json:"input,omitempty"`
	InputDetails  *dataDetails `json:"inputDetails,omitempty"`
	Output        *string      `json:"output,omitempty"`
	OutputDetails *dataDetails `json:"outputDetails,omitempty"`
}

type taskResource struct {
	ResourceType string `json:"resourceType"`
	Resource     string `json:"resource"`
}

type taskScheduledDetails struct {
	taskResource
	Region     string `json:"region"`
	Parameters string `json:"parameters"`
}

type taskOutputDetails struct {
	taskResource
	Output        *string      `json:"output,omitempty"`
	OutputDetails *dataDetails `json:"outputDetails,omitempty"`
}

type taskErrorDetails struct {
	taskResource
	Error *string `json:"error,omitempty"`
	Cause *string `json:"cause,omitempty"`
}

// lambdaCallback is the resource of a lambda:invoke.waitForTaskToken task.
var lambdaCallback = taskResource{ResourceType: "lambda", Resource: "invoke.waitForTaskToken"}

// withoutData returns the event as GetExecutionHistory writes it with
// includeExecutionData=false: no inputs or outputs.
func (e historyEvent) withoutData() historyEvent {
	if d := e.ExecutionStarted; d != nil {
		c := *d
		c.Input, c.InputDetails = nil, nil
		e.ExecutionStarted = &c
	}
	for _, p := range []**stateDetails{&e.StateEntered, &e.StateExited} {
		if *p != nil {
			c := **p
			c.Input, c.InputDetails, c.Output, c.OutputDetails = nil, nil, nil, nil
			*p = &c
		}
	}
	for _, p := range []**taskOutputDetails{&e.TaskSubmitted, &e.TaskSucceeded} {
		if *p != nil {
			c := **p
			c.Output, c.OutputDetails = nil, nil
			*p = &c
		}
	}
	return e
}

// epochSeconds marshals a time as AWS JSON does: seconds since the epoch as
// a number with millisecond precision.
type epochSeconds time.Time

func (t epochSeconds) MarshalJSON() ([]byte, error) {
	ms := time.Time(t).UnixMilli()
	return []byte(strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64)), nil
}

func ptr[T any](v T) *T { return &v }
