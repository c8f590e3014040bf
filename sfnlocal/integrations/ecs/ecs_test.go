package ecs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/ecs"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// engine runs definitions with the ECS integration and the task
// definitions given.
type engine struct {
	t   *testing.T
	e   *sfnlocal.Engine
	ecs *ecs.Integration
	n   int // state machines created
}

func newEngine(t *testing.T, defs ...ecs.TaskDefinition) *engine {
	t.Helper()
	integ := ecs.New(ecs.Options{})
	t.Cleanup(integ.Close)
	for _, td := range defs {
		if err := integ.Register(td); err != nil {
			t.Fatal(err)
		}
	}
	e := sfnlocal.New(sfnlocal.Options{Integrations: []task.Integration{integ}})
	t.Cleanup(e.Close)
	return &engine{t: t, e: e, ecs: integ}
}

func (e *engine) run(def, input string) (sfnlocal.Execution, []sfnlocal.HistoryEvent) {
	e.t.Helper()
	e.n++
	sm, err := e.e.CreateStateMachine(ctx(e.t), sfnlocal.CreateStateMachineInput{Name: fmt.Sprintf("workers-%d", e.n), Definition: def, RoleArn: "arn:aws:iam::123456789012:role/r"})
	if err != nil {
		e.t.Fatal(err)
	}
	x, err := e.e.StartExecution(ctx(e.t), sfnlocal.StartExecutionInput{StateMachineArn: sm.StateMachineArn, Input: input})
	if err != nil {
		e.t.Fatal(err)
	}
	done, err := e.e.WaitExecution(ctx(e.t), x.ExecutionArn)
	if err != nil {
		e.t.Fatal(err)
	}
	h, err := e.e.GetExecutionHistory(ctx(e.t), sfnlocal.GetExecutionHistoryInput{ExecutionArn: x.ExecutionArn, MaxResults: 1000})
	if err != nil {
		e.t.Fatal(err)
	}
	return done, h.Events
}

// runTask is a Task state starting the worker task definition on Fargate,
// passing the item in ITEM, as the shipped batch workflow does.
func runTask(resource, extra string) string {
	return `{"StartAt":"Work","States":{"Work":{"Type":"Task","Resource":"` + resource + `",` + extra + `
		"Parameters":{"Cluster":"batch","TaskDefinition":"worker:3","LaunchType":"FARGATE",
			"NetworkConfiguration":{"AwsvpcConfiguration":{"Subnets":["subnet-1","subnet-2"],"SecurityGroups":["sg-1"]}},
			"Overrides":{"ContainerOverrides":[{"Name":"worker","Environment":[{"Name":"ITEM","Value.$":"States.JsonToString($.item)"}]}]}},
		"End":true}}}`
}

// exiting is a worker that exits with the code ITEM's "exit" says.
func exiting(seen chan<- ecs.Container) ecs.Runner {
	return func(_ context.Context, c ecs.Container) (int, error) {
		if seen != nil {
			seen <- c
		}
		var item struct{ Exit int }
		if err := json.Unmarshal([]byte(c.Environment["ITEM"]), &item); err != nil {
			return 1, nil
		}
		fmt.Fprintf(c.Stdout, "processing %s\n", c.Environment["ITEM"])
		return item.Exit, nil
	}
}

func keys(t *testing.T, raw string) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The members AWS recorded (LocalStack's AWS-validated snapshot
// test_ecs_task_service::test_run_task_sync, Fargate with awsvpc).
var (
	recordedRunTask       = []string{"Failures", "SdkHttpMetadata", "SdkResponseMetadata", "Tasks"}
	recordedSubmittedTask = []string{"Attachments", "Attributes", "AvailabilityZone", "ClusterArn", "Containers", "Cpu", "CreatedAt", "DesiredStatus", "EnableExecuteCommand", "EphemeralStorage", "Group", "InferenceAccelerators", "LastStatus", "LaunchType", "Memory", "Overrides", "PlatformFamily", "PlatformVersion", "StartedBy", "Tags", "TaskArn", "TaskDefinitionArn", "Version"}
	recordedStoppedTask   = []string{"Attachments", "Attributes", "AvailabilityZone", "ClusterArn", "Connectivity", "ConnectivityAt", "Containers", "Cpu", "CreatedAt", "DesiredStatus", "EnableExecuteCommand", "EphemeralStorage", "ExecutionStoppedAt", "Group", "InferenceAccelerators", "LastStatus", "LaunchType", "Memory", "Overrides", "PlatformVersion", "PullStartedAt", "PullStoppedAt", "StartedAt", "StartedBy", "StopCode", "StoppedAt", "StoppedReason", "StoppingAt", "Tags", "TaskArn", "TaskDefinitionArn", "Version"}
	recordedPendingCont   = []string{"ContainerArn", "Cpu", "GpuIds", "Image", "LastStatus", "ManagedAgents", "Name", "NetworkBindings", "NetworkInterfaces", "TaskArn"}
	recordedStoppedCont   = []string{"ContainerArn", "Cpu", "ExitCode", "GpuIds", "Image", "ImageDigest", "LastStatus", "ManagedAgents", "Name", "NetworkBindings", "NetworkInterfaces", "RuntimeId", "TaskArn"}
)

func TestRunTaskSync(t *testing.T) {
	t.Parallel()
	seen := make(chan ecs.Container, 1)
	e := newEngine(t, ecs.TaskDefinition{Family: "worker", Container: "worker", Environment: map[string]string{"MODE": "batch"}, Run: exiting(seen)})
	x, events := e.run(runTask("arn:aws:states:::ecs:runTask.sync", ""), `{"item":{"id":"a","exit":0}}`)
	if x.Status != sfnlocal.StatusSucceeded {
		t.Fatalf("status %s (%s: %s)", x.Status, x.Error, x.Cause)
	}
	c := <-seen
	if c.Environment["ITEM"] != `{"id":"a","exit":0}` || c.Environment["MODE"] != "batch" || c.Name != "worker" || !strings.HasPrefix(c.TaskARN, "arn:aws:ecs:us-east-1:123456789012:task/batch/") {
		t.Errorf("the container ran with %+v", c)
	}
	var types []string
	var submitted, succeeded string
	for _, ev := range events {
		types = append(types, ev.Type)
		if d, ok := ev.Details.(*sfnlocal.TaskOutputEventDetails); ok {
			if ev.Type == sfnlocal.EventTaskSubmitted {
				submitted = d.Output
			} else {
				succeeded = d.Output
			}
			if d.ResourceType != "ecs" || d.Resource != "runTask.sync" {
				t.Errorf("%s names %s %s", ev.Type, d.ResourceType, d.Resource)
			}
		}
	}
	want := []string{"ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSubmitted", "TaskSucceeded", "TaskStateExited", "ExecutionSucceeded"}
	if !slices.Equal(types, want) {
		t.Fatalf("history %v, want %v (AWS's recording)", types, want)
	}
	if got := keys(t, submitted); !slices.Equal(got, recordedRunTask) {
		t.Errorf("TaskSubmitted members %v, want %v", got, recordedRunTask)
	}
	var sub struct {
		Failures []any
		Tasks    []json.RawMessage
	}
	_ = json.Unmarshal([]byte(submitted), &sub)
	if len(sub.Tasks) != 1 || len(sub.Failures) != 0 {
		t.Fatalf("RunTask response %s", submitted)
	}
	if got := keys(t, string(sub.Tasks[0])); !slices.Equal(got, recordedSubmittedTask) {
		t.Errorf("submitted task members\n got %v\nwant %v", got, recordedSubmittedTask)
	}
	var pending, stopped struct {
		LastStatus, StopCode, StoppedReason, StartedBy, Group, TaskDefinitionArn string
		Containers                                                               []json.RawMessage
		Overrides                                                                struct {
			ContainerOverrides []struct {
				Name        string
				Environment []struct{ Name, Value string }
			}
		}
	}
	_ = json.Unmarshal(sub.Tasks[0], &pending)
	if pending.LastStatus != "PROVISIONING" || pending.StartedBy != "AWS Step Functions" || pending.Group != "family:worker" ||
		pending.TaskDefinitionArn != "arn:aws:ecs:us-east-1:123456789012:task-definition/worker:3" {
		t.Errorf("submitted task %s", sub.Tasks[0])
	}
	if got := keys(t, string(pending.Containers[0])); !slices.Equal(got, recordedPendingCont) {
		t.Errorf("pending container members %v, want %v", got, recordedPendingCont)
	}
	if got := keys(t, succeeded); !slices.Equal(got, recordedStoppedTask) {
		t.Errorf("TaskSucceeded members\n got %v\nwant %v", got, recordedStoppedTask)
	}
	_ = json.Unmarshal([]byte(succeeded), &stopped)
	if stopped.LastStatus != "STOPPED" || stopped.StopCode != "EssentialContainerExited" || stopped.StoppedReason != "Essential container in task exited" {
		t.Errorf("stopped task %s", succeeded)
	}
	if got := keys(t, string(stopped.Containers[0])); !slices.Equal(got, recordedStoppedCont) {
		t.Errorf("stopped container members %v, want %v", got, recordedStoppedCont)
	}
	if o := stopped.Overrides.ContainerOverrides; len(o) != 1 || o[0].Name != "worker" || len(o[0].Environment) != 1 || o[0].Environment[0].Value != `{"id":"a","exit":0}` {
		t.Errorf("overrides %+v", o)
	}
	if x.Output != succeeded {
		t.Errorf("the state's output is not the stopped task")
	}
}

// A container that exits with another code than 0 fails the task with
// States.TaskFailed and the stopped task as the cause, which a Catch can
// read the exit code from.
func TestRunTaskSyncExitCode(t *testing.T) {
	t.Parallel()
	e := newEngine(t, ecs.TaskDefinition{Family: "worker", Container: "worker", Run: exiting(nil)})
	def := runTask("arn:aws:states:::ecs:runTask.sync", `"Catch":[{"ErrorEquals":["States.TaskFailed"],"ResultPath":"$.failure","Next":"Read"}],`)
	def = strings.Replace(def, `"End":true}}}`, `"End":true},
		"Read":{"Type":"Pass","Parameters":{"task.$":"States.StringToJson($.failure.Cause)"},"OutputPath":"$.task","Next":"Exit"},
		"Exit":{"Type":"Pass","Parameters":{"exitCode.$":"$.Containers[0].ExitCode","stopCode.$":"$.StopCode","reason.$":"$.StoppedReason"},"End":true}}}`, 1)
	x, _ := e.run(def, `{"item":{"id":"b","exit":3}}`)
	if x.Status != sfnlocal.StatusSucceeded || x.Output != `{"exitCode":3,"stopCode":"EssentialContainerExited","reason":"Essential container in task exited"}` {
		t.Errorf("ended %s %s: %s, output %s", x.Status, x.Error, x.Cause, x.Output)
	}
	x, _ = e.run(runTask("arn:aws:states:::ecs:runTask.sync", ""), `{"item":{"id":"c","exit":137}}`)
	if x.Status != sfnlocal.StatusFailed || x.Error != "States.TaskFailed" || !strings.Contains(x.Cause, `"ExitCode":137`) || !strings.HasPrefix(x.Cause, `{"Attachments":`) {
		t.Errorf("exit 137: %s %s: %.200s", x.Status, x.Error, x.Cause)
	}
}

func TestCommandRunner(t *testing.T) {
	t.Parallel()
	e := newEngine(t,
		ecs.TaskDefinition{Family: "shell", Container: "worker", Run: ecs.CommandRunner("sh", "-c"), Command: []string{"exit 0"}},
		ecs.TaskDefinition{Family: "missing", Container: "worker", Run: ecs.CommandRunner("/no/such/program")},
	)
	def := func(family, command string) string {
		return `{"StartAt":"Work","States":{"Work":{"Type":"Task","Resource":"arn:aws:states:::ecs:runTask.sync",
			"Parameters":{"TaskDefinition":"` + family + `","Overrides":{"ContainerOverrides":[{"Name":"worker",` + command + `"Environment":[{"Name":"CODE","Value":"5"}]}]}},"End":true}}}`
	}
	tests := []struct {
		name, family, command, wantStatus string
		wantInCause                       []string
	}{
		{"the override's command and environment", "shell", `"Command":["echo started; exit $CODE"],`, "FAILED", []string{`"ExitCode":5`}},
		{"the definition's command", "shell", ``, "SUCCEEDED", nil},
		{"a program that cannot start", "missing", ``, "FAILED", []string{`"StopCode":"TaskFailedToStart"`, `"StoppedReason":"CannotStartContainerError: `, `"Reason":"CannotStartContainerError: `}},
	}
	for _, tt := range tests {
		x, _ := e.run(def(tt.family, tt.command), `{}`)
		if x.Status != tt.wantStatus {
			t.Errorf("%s: %s %s: %.300s", tt.name, x.Status, x.Error, x.Cause)
		}
		for _, want := range tt.wantInCause {
			if !strings.Contains(x.Cause, want) {
				t.Errorf("%s: the cause has no %s: %s", tt.name, want, x.Cause)
			}
		}
	}
}

// ECS's refusals fail the task with its exception, before anything runs.
func TestRunTaskRefused(t *testing.T) {
	t.Parallel()
	ran := make(chan ecs.Container, 1)
	e := newEngine(t, ecs.TaskDefinition{Family: "worker", Container: "worker", Run: exiting(ran)})
	tests := []struct {
		name, params, wantError, wantCause string
	}{
		{"unknown task definition", `{"TaskDefinition":"nope"}`, "ECS.ClientException", "TaskDefinition not found. (Service: AmazonECS; Status Code: 400; Error Code: ClientException; Request ID: "},
		{"override of another container", `{"TaskDefinition":"worker","Overrides":{"ContainerOverrides":[{"Name":"sidecar"}]}}`, "ECS.InvalidParameterException", "Override for container named sidecar is not a container in the TaskDefinition."},
		{"no task definition", `{"Cluster":"batch"}`, "ECS.InvalidParameterException", "TaskDefinition can not be blank."},
	}
	for _, tt := range tests {
		x, _ := e.run(`{"StartAt":"W","States":{"W":{"Type":"Task","Resource":"arn:aws:states:::ecs:runTask.sync","Parameters":`+tt.params+`,"End":true}}}`, `{}`)
		if x.Status != sfnlocal.StatusFailed || x.Error != tt.wantError || !strings.HasPrefix(x.Cause, tt.wantCause) {
			t.Errorf("%s: %s %s: %s", tt.name, x.Status, x.Error, x.Cause)
		}
	}
	select {
	case c := <-ran:
		t.Errorf("a refused task ran: %+v", c)
	default:
	}
	if err := e.ecs.Register(ecs.TaskDefinition{Family: "x"}); err == nil {
		t.Error("a definition without a container and runner was registered")
	}
}

// runTask (Request Response) answers RunTask's response at once; the
// task runs on.
func TestRunTaskRequestResponse(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	ran := make(chan string, 1)
	e := newEngine(t, ecs.TaskDefinition{Family: "worker", Container: "worker", Run: func(ctx context.Context, c ecs.Container) (int, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		ran <- c.Environment["ITEM"]
		return 0, nil
	}})
	x, events := e.run(runTask("arn:aws:states:::ecs:runTask", ""), `{"item":"x"}`)
	if x.Status != sfnlocal.StatusSucceeded || !strings.Contains(x.Output, `"LastStatus":"PROVISIONING"`) {
		t.Fatalf("%s: %.200s", x.Status, x.Output)
	}
	for _, ev := range events {
		if ev.Type == sfnlocal.EventTaskSubmitted {
			t.Error("Request Response recorded TaskSubmitted")
		}
	}
	close(release)
	select {
	case got := <-ran:
		if got != `"x"` {
			t.Errorf("the task ran with ITEM %s", got)
		}
	case <-ctx(t).Done():
		t.Fatal("the task never ran")
	}
}

// .waitForTaskToken: the container gets the token and answers with it.
func TestRunTaskWaitForTaskToken(t *testing.T) {
	t.Parallel()
	var e *engine
	e = newEngine(t, ecs.TaskDefinition{Family: "worker", Container: "worker", Run: func(ctx context.Context, c ecs.Container) (int, error) {
		err := e.e.SendTaskSuccess(ctx, sfnlocal.SendTaskSuccessInput{TaskToken: c.Environment["TASK_TOKEN"], Output: `{"processed":` + c.Environment["ITEM"] + `}`})
		if err != nil {
			return 1, nil
		}
		return 0, nil
	}})
	def := `{"StartAt":"W","States":{"W":{"Type":"Task","Resource":"arn:aws:states:::ecs:runTask.waitForTaskToken",
		"Parameters":{"TaskDefinition":"worker","Overrides":{"ContainerOverrides":[{"Name":"worker","Environment":[
			{"Name":"TASK_TOKEN","Value.$":"$$.Task.Token"},{"Name":"ITEM","Value":"42"}]}]}},"HeartbeatSeconds":60,"End":true}}}`
	x, events := e.run(def, `{}`)
	if x.Status != sfnlocal.StatusSucceeded || x.Output != `{"processed":42}` {
		t.Fatalf("%s %s: %s, output %s", x.Status, x.Error, x.Cause, x.Output)
	}
	var types []string
	for _, ev := range events {
		types = append(types, ev.Type)
	}
	if !slices.Contains(types, sfnlocal.EventTaskSubmitted) {
		t.Errorf("history %v has no TaskSubmitted", types)
	}
}

// A .sync task whose state times out is stopped: its runner's context
// ends.
func TestRunTaskSyncTimeoutStopsTheTask(t *testing.T) {
	t.Parallel()
	stopped := make(chan error, 1)
	e := newEngine(t, ecs.TaskDefinition{Family: "worker", Container: "worker", Run: func(ctx context.Context, c ecs.Container) (int, error) {
		<-ctx.Done()
		stopped <- ctx.Err()
		return 137, nil
	}})
	x, _ := e.run(`{"StartAt":"W","States":{"W":{"Type":"Task","Resource":"arn:aws:states:::ecs:runTask.sync","TimeoutSeconds":1,
		"Parameters":{"TaskDefinition":"worker"},"End":true}}}`, `{}`)
	if x.Status != sfnlocal.StatusFailed || x.Error != "States.Timeout" {
		t.Errorf("%s %s", x.Status, x.Error)
	}
	select {
	case err := <-stopped:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the runner's context ended with %v", err)
		}
	case <-ctx(t).Done():
		t.Fatal("the runner was never stopped")
	}
}
