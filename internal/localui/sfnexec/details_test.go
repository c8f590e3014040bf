package sfnexec

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

func TestMaskJSON(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"order kept, no token", `{"z":1,"a":[true,null,"é<>"],"m":{}}`, "{\n  \"z\": 1,\n  \"a\": [\n    true,\n    null,\n    \"é<>\"\n  ],\n  \"m\": {}\n}"},
		{"token members", `{"taskToken":"T1","Token":"T2","myTaskToken":"T3","tokens":"kept","token":""}`,
			"{\n  \"taskToken\": \"" + Masked + "\",\n  \"Token\": \"" + Masked + "\",\n  \"myTaskToken\": \"" + Masked + "\",\n  \"tokens\": \"kept\",\n  \"token\": \"\"\n}"},
		{"JSON text holding a token", `{"body":"{\"taskToken\":\"T1\",\"n\":1}"}`, "{\n  \"body\": \"{\\\"taskToken\\\":\\\"" + Masked + "\\\",\\\"n\\\":1}\"\n}"},
		{"a bare string", `"hi"`, `"hi"`},
		{"not JSON", `{"a":`, `{"a":`},
		{"two values", `{} {}`, `{} {}`},
		{"empty", ``, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := maskJSON(tt.in); got != tt.want {
				t.Errorf("maskJSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestDetails(t *testing.T) {
	t.Parallel()
	ev := types.HistoryEvent{Type: types.HistoryEventTypeTaskScheduled, TaskScheduledEventDetails: &types.TaskScheduledEventDetails{
		Resource: aws.String("invoke.waitForTaskToken"), ResourceType: aws.String("lambda"), Region: aws.String("us-east-1"),
		Parameters: aws.String(`{"FunctionName":"f","Payload":{"taskToken":"T1"}}`),
	}}
	want := "{\n  \"parameters\": {\n    \"FunctionName\": \"f\",\n    \"Payload\": {\n      \"taskToken\": \"" + Masked + "\"\n    }\n  },\n  \"region\": \"us-east-1\",\n  \"resource\": \"invoke.waitForTaskToken\",\n  \"resourceType\": \"lambda\"\n}"
	if got := details(ev); got != want {
		t.Errorf("details\n got %s\nwant %s", got, want)
	}
	if got := details(types.HistoryEvent{Type: types.HistoryEventTypeSucceedStateEntered}); got != "" {
		t.Errorf("details of an event without any = %q", got)
	}
}

func TestCurrentState(t *testing.T) {
	t.Parallel()
	entered := func(name string) types.HistoryEvent {
		return types.HistoryEvent{Type: "TaskStateEntered", StateEnteredEventDetails: &types.StateEnteredEventDetails{Name: aws.String(name)}}
	}
	exited := func(name string) types.HistoryEvent {
		return types.HistoryEvent{Type: "TaskStateExited", StateExitedEventDetails: &types.StateExitedEventDetails{Name: aws.String(name)}}
	}
	scheduled := func(resource string) types.HistoryEvent {
		return types.HistoryEvent{Type: "TaskScheduled", TaskScheduledEventDetails: &types.TaskScheduledEventDetails{Resource: aws.String(resource)}}
	}
	tests := []struct {
		name        string
		newestFirst []types.HistoryEvent
		state       string
		waiting     bool
	}{
		{"waits for a token", []types.HistoryEvent{{Type: "TaskSubmitted"}, {Type: "TaskStarted"}, scheduled("invoke.waitForTaskToken"), entered("Approve")}, "Approve", true},
		{"a plain task", []types.HistoryEvent{{Type: "TaskStarted"}, scheduled("invoke"), entered("Draft")}, "Draft", false},
		{"the token came", []types.HistoryEvent{{Type: "TaskSucceeded"}, {Type: "TaskSubmitted"}, scheduled("invoke.waitForTaskToken"), entered("Approve")}, "Approve", false},
		{"between states", []types.HistoryEvent{exited("A"), entered("A")}, "", false},
		{"a branch still running", []types.HistoryEvent{exited("B1"), entered("B1"), entered("B2"), entered("Parallel")}, "B2", false},
		{"nothing yet", []types.HistoryEvent{{Type: "ExecutionStarted"}}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, waiting := currentState(tt.newestFirst)
			if state != tt.state || waiting != tt.waiting {
				t.Errorf("currentState = %q, %v; want %q, %v", state, waiting, tt.state, tt.waiting)
			}
		})
	}
}
