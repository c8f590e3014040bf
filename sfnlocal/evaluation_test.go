package sfnlocal

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// An error found evaluating a JSONata field records EvaluationFailed with
// the field and the state, chained to the event before the state's entry
// (AWS's recorded test_undefined_reference), whatever happens next: the
// execution fails, a Catch takes the error, or a Retry runs the state
// again. AWS's recordings cover the first; the caught and retried forms
// follow the same rule and are pinned here.
func TestEvaluationFailedEvents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, def, input string
		wantTypes        []string
		wantLocation     string
	}{
		{"JSONPath ItemsPath not an array",
			`{"StartAt":"M","States":{"M":{"Type":"Map","ItemsPath":"$.items","ItemProcessor":{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}},"End":true}}}`,
			`{"items":{"a":1}}`,
			[]string{"ExecutionStarted", "MapStateEntered", "EvaluationFailed", "MapStateFailed", "ExecutionFailed"}, ""},
		{"caught Output",
			`{"QueryLanguage":"JSONata","StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Arguments":{"FunctionName":"f"},"Output":"{% $states.result.nope %}",
			  "Catch":[{"ErrorEquals":["States.QueryEvaluationError"],"Next":"H"}],"End":true},"H":{"Type":"Pass","End":true}}}`,
			`{}`,
			[]string{"ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSucceeded", "EvaluationFailed", "TaskStateExited", "PassStateEntered", "PassStateExited", "ExecutionSucceeded"}, "Output"},
		{"retried Assign",
			`{"QueryLanguage":"JSONata","StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Arguments":{"FunctionName":"f"},"Assign":{"x":"{% $nope %}"},
			  "Retry":[{"ErrorEquals":["States.ALL"],"MaxAttempts":1,"IntervalSeconds":0}],"End":true}}}`,
			`{}`,
			[]string{"ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSucceeded", "EvaluationFailed",
				"TaskScheduled", "TaskStarted", "TaskSucceeded", "EvaluationFailed", "ExecutionFailed"}, "Assign/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, funcIntegration(func(context.Context, task.Call) (json.RawMessage, error) {
				return json.RawMessage(`{"Payload":{}}`), nil
			}))
			arn := h.start(h.create(tt.def), tt.input)
			h.wait(arn)
			events := h.events(arn)
			if got := eventTypes(events); !slices.Equal(got, tt.wantTypes) {
				t.Fatalf("history %v\nwant    %v", got, tt.wantTypes)
			}
			var entered HistoryEvent
			for i, ev := range events {
				if ev.Type != EventEvaluationFailed {
					continue
				}
				for j := i - 1; j >= 0; j-- {
					if events[j].Type == StateEntered(stateTypeOf(events[j].Type)) {
						entered = events[j]
						break
					}
				}
				d := ev.Details.(*EvaluationFailedEventDetails)
				if d.Location != tt.wantLocation || d.State == "" || d.Error != errQueryEvaluation {
					t.Errorf("EvaluationFailed details %+v, want location %q", d, tt.wantLocation)
				}
				if ev.PreviousEventID != entered.PreviousEventID {
					t.Errorf("EvaluationFailed %d follows %d, want %d (the event before %s)", ev.ID, ev.PreviousEventID, entered.PreviousEventID, entered.Type)
				}
				if next := events[i+1]; next.PreviousEventID != ev.ID && next.Type != EventTaskScheduled {
					t.Errorf("%s follows %d, want EvaluationFailed %d", next.Type, next.PreviousEventID, ev.ID)
				}
			}
		})
	}
}

// stateTypeOf is the state type of a <Type>StateEntered event type, or "".
func stateTypeOf(eventType string) string {
	if len(eventType) > len("StateEntered") && eventType[len(eventType)-len("StateEntered"):] == "StateEntered" {
		return eventType[:len(eventType)-len("StateEntered")]
	}
	return ""
}
