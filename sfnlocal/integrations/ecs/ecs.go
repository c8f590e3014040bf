// Package ecs runs the Task states that start Amazon ECS tasks,
// arn:aws:states:::ecs:runTask and its .sync (Run a Job) and
// .waitForTaskToken variants, on local stand-ins: each task definition
// family is registered with a Runner, an in-process function or a command
// (CommandRunner), which gets the container's command and environment
// with the state's ContainerOverrides applied, as the container would.
//
// The answers have the shapes Step Functions records (LocalStack's
// AWS-validated snapshot of ecs:runTask and ecs:runTask.sync): RunTask's
// response, {"Failures": [], "Tasks": [the task, PROVISIONING]} with the
// SDK metadata, is the result of runTask and what .sync and
// .waitForTaskToken record as TaskSubmitted; a .sync task's result is the
// stopped task as DescribeTasks describes it (Containers with ExitCode,
// StopCode "EssentialContainerExited", StoppedReason "Essential container
// in task exited"). A container that exits with another code than 0, or
// cannot start (StopCode "TaskFailedToStart"), fails a .sync task with
// States.TaskFailed and that description, as JSON, as the cause. An
// unknown task definition fails with ECS.ClientException.
//
// runTask and .waitForTaskToken tasks run in the background; Close stops
// those still running.
package ecs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/sfnlocal/integrations/internal/awstask"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// TaskDefinition is a local stand-in for an ECS task definition with one
// essential container.
type TaskDefinition struct {
	// Family is what RunTask's TaskDefinition names: "family",
	// "family:revision" or the task definition's ARN.
	Family string
	// Container is the container's name, which ContainerOverrides name.
	Container string
	// Image is reported as the container's image (default
	// "local/<family>").
	Image string
	// Command and Environment are the container's defaults; an override
	// replaces Command and adds to or replaces Environment.
	Command     []string
	Environment map[string]string
	// Cpu and Memory are reported as the task's (default "256", "512").
	Cpu, Memory string
	// Run runs the container.
	Run Runner
}

// Options configure an Integration.
type Options struct {
	// Logger gets each stand-in's output lines, keyed by task ARN
	// (default none).
	Logger *zap.Logger
	// Clock gives the task's timestamps (default time.Now).
	Clock func() time.Time
}

// Integration runs ecs:runTask Task states. It is safe for concurrent use.
type Integration struct {
	log *zap.Logger
	now func() time.Time

	mu   sync.RWMutex
	defs map[string]TaskDefinition

	ctx    context.Context // the background tasks'; Close cancels it
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var _ task.Integration = (*Integration)(nil)

// New returns an integration without task definitions.
func New(opts Options) *Integration {
	i := &Integration{log: opts.Logger, now: opts.Clock, defs: map[string]TaskDefinition{}}
	if i.log == nil {
		i.log = zap.NewNop()
	}
	if i.now == nil {
		i.now = time.Now
	}
	i.ctx, i.cancel = context.WithCancel(context.Background())
	return i
}

// Register makes td runnable, replacing an earlier definition of its
// family. A definition without a family, container name or Runner is an
// error.
func (i *Integration) Register(td TaskDefinition) error {
	if td.Family == "" || td.Container == "" || td.Run == nil {
		return fmt.Errorf("ecs: a task definition needs a Family, a Container name and a Runner (family %q, container %q)", td.Family, td.Container)
	}
	if td.Image == "" {
		td.Image = "local/" + td.Family
	}
	if td.Cpu == "" {
		td.Cpu = "256"
	}
	if td.Memory == "" {
		td.Memory = "512"
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.defs[td.Family] = td
	return nil
}

func (i *Integration) definition(family string) (TaskDefinition, bool) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	td, ok := i.defs[family]
	return td, ok
}

// Close stops the tasks still running in the background and waits for
// them.
func (i *Integration) Close() {
	i.cancel()
	i.wg.Wait()
}

var ecsService = awstask.Service{Prefix: "ECS", Name: "AmazonECS", Generic: "AmazonECSException"}

// Supports reports whether resource is ecs:runTask, ecs:runTask.sync or
// ecs:runTask.waitForTaskToken.
func (i *Integration) Supports(resource string) bool {
	r, ok := awstask.ParseResource(resource)
	return ok && r.Service == "ecs" && r.Action == "runTask" && (r.Pattern == "" || r.Pattern == ".sync" || r.Pattern == awstask.WaitForTaskToken)
}

// Invoke starts one task. For .sync it waits until the task stops and
// returns its description; otherwise it returns RunTask's response and
// the task runs on in the background. A done ctx returns ctx's error.
func (i *Integration) Invoke(ctx context.Context, call task.Call) (json.RawMessage, error) {
	res, ok := awstask.ParseResource(call.Resource)
	if !ok || !i.Supports(call.Resource) {
		return nil, fmt.Errorf("ecs: resource %s is not an ECS runTask integration", call.Resource)
	}
	in, err := parseParameters(call.Parameters)
	if err != nil {
		return nil, err
	}
	family := familyOf(in.TaskDefinition)
	td, ok := i.definition(family)
	if !ok {
		return nil, clientError("TaskDefinition not found.")
	}
	if err := in.checkOverrides(td); err != nil {
		return nil, err
	}
	region, account := regionAccount(call.StateMachineARN)
	sync := res.Pattern == ".sync"
	t := newTask(td, in, region, account, i.now(), sync)
	submitted, err := runTaskResponse(t)
	if err != nil {
		return nil, err
	}
	if !sync {
		i.wg.Add(1)
		go func() {
			defer i.wg.Done()
			i.run(i.ctx, td, t)
		}()
		return submitted, nil
	}
	if call.Submitted != nil {
		call.Submitted(submitted)
	}
	i.run(ctx, td, t)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	described, err := json.Marshal(t.stopped)
	if err != nil {
		return nil, err
	}
	if t.failed() {
		return nil, &task.Failure{Name: "States.TaskFailed", Cause: string(described)}
	}
	return described, nil
}

// run runs the task's container and records how the task stopped.
func (i *Integration) run(ctx context.Context, td TaskDefinition, t *localTask) {
	c := t.container(td)
	out := &lineLogger{log: i.log.With(zap.String("ecs_task", t.arn), zap.String("container", c.Name))}
	c.Stdout = out
	started := i.now()
	code, err := safeRun(ctx, td.Run, c)
	out.flush()
	t.stop(started, i.now(), code, err)
	if err != nil {
		i.log.Info("ECS stand-in could not start", zap.String("ecs_task", t.arn), zap.Error(err))
	}
}

// safeRun runs a Runner; a panic is a crash with exit code 2, as a Go
// program's.
func safeRun(ctx context.Context, run Runner, c Container) (code int, err error) {
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(c.Stdout, "panic: %v\n", v)
			code, err = 2, nil
		}
	}()
	return run(ctx, c)
}

// familyOf reads the family from "family", "family:3" or
// "arn:aws:ecs:…:task-definition/family:3".
func familyOf(taskDefinition string) string {
	s := taskDefinition
	if i := strings.LastIndex(s, "task-definition/"); i >= 0 {
		s = s[i+len("task-definition/"):]
	}
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return s
}

// regionAccount reads the Region and account from a state machine ARN.
func regionAccount(stateMachineARN string) (string, string) {
	parts := strings.Split(stateMachineARN, ":")
	if len(parts) >= 5 && parts[3] != "" && parts[4] != "" {
		return parts[3], parts[4]
	}
	return "us-east-1", "123456789012"
}

// clientError is ECS's refusal of a request, as Step Functions names it.
func clientError(message string) error {
	return &task.Failure{Name: ecsService.Prefix + ".ClientException",
		Cause: awstask.ServiceErrorCause(message, ecsService.Name, 400, "ClientException", awstask.NewRequestID())}
}

// invalidParameter is ECS's InvalidParameterException.
func invalidParameter(message string) error {
	return &task.Failure{Name: ecsService.Prefix + ".InvalidParameterException",
		Cause: awstask.ServiceErrorCause(message, ecsService.Name, 400, "InvalidParameterException", awstask.NewRequestID())}
}
