package definitions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/sfnapprovals/approvals/internal/s3local"
	"github.com/sfnapprovals/approvals/lambdas/notifier"
	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/host"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/ecs"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	s3integ "github.com/sfnapprovals/approvals/sfnlocal/integrations/s3"
	"github.com/sfnapprovals/approvals/sfnlocal/sfnapi"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/definitions"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// Slack IDs the tests use.
const (
	channel     = "C0PUBLISH"
	approver    = "U0APPROVER"
	requester   = "U0REQUESTER"
	escalation  = "S0ESCALATE" // a user group
	boss        = "U0BOSS"     // its only member
	waitTimeout = 10 * time.Second
)

var epoch = time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)

// harness runs definitions on the local engine with the real notifier
// registered as the Lambda function notifierFunction, and plays the
// approver through workflow.Service.Decide, whose resumes go through the
// production stepfunctions.Resumer and the real aws-sdk-go-v2 sfn client
// to the engine's Step Functions API server.
type harness struct {
	t       *testing.T
	clock   *sfnlocal.FakeClock
	engine  *sfnlocal.Engine
	service *workflow.Service
	store   *workflowtest.Store
	poster  *poster
	lambdas *lambda.Integration
	// tasks runs the ECS workers (registerWorker); s3 is the batch
	// workflows' bucket, batchBucket, on a local S3 holding the samples'
	// objects.
	tasks *ecs.Integration
	s3    *awss3.Client
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{
		t:       t,
		clock:   sfnlocal.NewFakeClock(epoch),
		store:   workflowtest.NewStore(),
		poster:  &poster{posted: make(chan post, 16)},
		lambdas: lambda.New(nil),
		tasks:   ecs.New(ecs.Options{Clock: time.Now}),
	}
	t.Cleanup(h.tasks.Close)
	store, err := s3local.Start(s3local.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	h.s3 = awss3.New(awss3.Options{Region: "us-east-1", BaseEndpoint: aws.String(store.URL()), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	if _, err := h.s3.CreateBucket(context.Background(), &awss3.CreateBucketInput{Bucket: aws.String(batchBucket)}); err != nil {
		t.Fatal(err)
	}
	for key, body := range definitions.SampleObjects() {
		h.putObject(key, string(body))
	}
	h.engine = sfnlocal.New(sfnlocal.Options{
		Clock:        h.clock,
		Integrations: []task.Integration{integrations.NewRouter(nil, h.lambdas, h.tasks, s3integ.New(h.s3))},
	})
	t.Cleanup(h.engine.Close)

	api := httptest.NewServer(sfnapi.NewHandler(h.engine))
	t.Cleanup(api.Close)
	resumer := stepfunctions.New(stepfunctionstest.NewClient(context.Background(), api.URL))
	directory := workflowtest.NewDirectory(map[string][]string{escalation: {boss}})
	h.service = workflow.NewService(h.store, resumer, directory)
	h.service.Now = h.clock.Now
	h.lambdas.Register(notifierFunction, notifier.New(h.service, h.poster, zap.NewNop()).Invoke)
	return h
}

// register runs fn as the Lambda function name, with JSON in and out.
func register[In, Out any](h *harness, name string, fn func(In) (Out, error)) {
	h.lambdas.Register(name, func(_ context.Context, payload []byte) ([]byte, error) {
		var in In
		if err := json.Unmarshal(payload, &in); err != nil {
			return nil, fmt.Errorf("%s: payload %s: %w", name, payload, err)
		}
		out, err := fn(in)
		if err != nil {
			return nil, err
		}
		return json.Marshal(out)
	})
}

// The names the tests register their Lambda functions under.
const (
	notifierFunction      = "approvals-notifier"
	draftAgentFunction    = "draft-agent"
	publishFunction       = "publish"
	fileRejectionFunction = "file-rejection"
	processItemFunction   = "process-item"
)

// The batch workflows' bucket and ECS worker, as the tests deploy them.
const (
	batchBucket     = "approvals-batch"
	workerFamily    = "process-item"
	workerContainer = "worker"
)

// putObject puts an object into the batch bucket.
func (h *harness) putObject(key, body string) {
	h.t.Helper()
	if _, err := h.s3.PutObject(context.Background(), &awss3.PutObjectInput{Bucket: aws.String(batchBucket), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
		h.t.Fatal(err)
	}
}

// registerWorker runs fn as the ECS worker: it gets the item (the ITEM
// environment variable, JSON) and returns the container's exit code.
func registerWorker(h *harness, fn func(item map[string]any) int) {
	h.t.Helper()
	err := h.tasks.Register(ecs.TaskDefinition{Family: workerFamily, Container: workerContainer, Run: func(_ context.Context, c ecs.Container) (int, error) {
		var item map[string]any
		if err := json.Unmarshal([]byte(c.Environment["ITEM"]), &item); err != nil {
			return 1, nil
		}
		return fn(item), nil
	}})
	if err != nil {
		h.t.Fatal(err)
	}
}

// functionARN is the ARN a deployment substitutes for a function: the
// engine invokes the function registered under its name.
func functionARN(name string) string {
	return "arn:aws:lambda:us-east-1:123456789012:function:" + name
}

// deployed are the DefinitionSubstitutions the tests deploy with.
func deployed() map[string]string {
	return map[string]string{
		definitions.Channel:                  channel,
		definitions.Approvers:                approver,
		definitions.EscalationApprovers:      escalation,
		definitions.NotifierFunctionArn:      functionARN(notifierFunction),
		definitions.DraftAgentFunctionArn:    functionARN(draftAgentFunction),
		definitions.PublishFunctionArn:       functionARN(publishFunction),
		definitions.FileRejectionFunctionArn: functionARN(fileRejectionFunction),
		definitions.ProcessItemFunctionArn:   functionARN(processItemFunction),
		definitions.BatchBucket:              batchBucket,
		definitions.WorkerCluster:            "batch",
		definitions.WorkerTaskDefinition:     "arn:aws:ecs:us-east-1:123456789012:task-definition/" + workerFamily + ":1",
		definitions.WorkerContainer:          workerContainer,
		definitions.WorkerSubnets:            "subnet-0a,subnet-0b",
		definitions.WorkerSecurityGroups:     "sg-0a",
	}
}

// start deploys the named definition with the usual substitutions and
// starts an execution with input.
func (h *harness) start(name string, input any) string {
	h.t.Helper()
	return h.startWith(name, deployed(), input)
}

// startWith creates a state machine from the named definition with its
// placeholders filled from subs and starts an execution with input.
func (h *harness) startWith(name string, subs map[string]string, input any) string {
	h.t.Helper()
	raw, err := definitions.Load(name)
	if err != nil {
		h.t.Fatal(err)
	}
	def, err := host.Substitute(raw, subs)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.startDefinition(strings.TrimSuffix(strings.ReplaceAll(name, ".", "-"), "-asl-json"), string(def), input)
}

// startDefinition creates a state machine from the definition and starts
// an execution with input.
func (h *harness) startDefinition(name, def string, input any) string {
	h.t.Helper()
	ctx := context.Background()
	sm, err := h.engine.CreateStateMachine(ctx, sfnlocal.CreateStateMachineInput{
		Name:       name,
		Definition: def,
		RoleArn:    "arn:aws:iam::123456789012:role/approvals-example",
	})
	if err != nil {
		h.t.Fatalf("CreateStateMachine(%s): %v", name, err)
	}
	in, err := json.Marshal(input)
	if err != nil {
		h.t.Fatal(err)
	}
	x, err := h.engine.StartExecution(ctx, sfnlocal.StartExecutionInput{StateMachineArn: sm.StateMachineArn, Input: string(in)})
	if err != nil {
		h.t.Fatalf("StartExecution: %v", err)
	}
	return x.ExecutionArn
}

// nextApproval waits for the notifier's next Slack post, then for the
// engine to record the notifier's answer (TaskSubmitted), so that a clock
// advance that follows times out a task that really is waiting for its
// token. It returns the approval posted.
func (h *harness) nextApproval() workflow.Approval {
	h.t.Helper()
	deadline := time.After(waitTimeout)
	var a workflow.Approval
	select {
	case p := <-h.poster.posted:
		a = p.approval
	case <-deadline:
		h.t.Fatalf("no approval was posted within %v", waitTimeout)
	}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		for _, s := range h.submissions(a.ExecutionARN) {
			if s.ApprovalID == a.ID {
				return a
			}
		}
		select {
		case <-tick.C:
		case <-deadline:
			h.t.Fatalf("approval %s was posted but no TaskSubmitted carries it after %v\nhistory:\n%s", a.ID, waitTimeout, h.historyText(a.ExecutionARN))
		}
	}
}

// noMorePosts fails if the notifier posted anything not yet taken.
func (h *harness) noMorePosts() {
	h.t.Helper()
	select {
	case p := <-h.poster.posted:
		h.t.Errorf("unexpected post %q in state %s", p.approval.Title, p.approval.StateName)
	default:
	}
}

// decide decides the approval as the bot does after a click.
func (h *harness) decide(a workflow.Approval, d workflow.Decision) workflow.Approval {
	h.t.Helper()
	if d.DecidedBy == "" {
		d.DecidedBy = approver
	}
	got, err := h.service.Decide(context.Background(), a.ID, d)
	if err != nil {
		h.t.Fatalf("Decide(%s, %s): %v", a.ID, d.Action, err)
	}
	if got.Status != workflow.StatusDecided {
		h.t.Fatalf("approval %s is %s after Decide, want decided", a.ID, got.Status)
	}
	return got
}

// withdraw withdraws the approval for its requester, as the bot does
// after the Withdraw modal.
func (h *harness) withdraw(a workflow.Approval, reason string) {
	h.t.Helper()
	got, err := h.service.Withdraw(context.Background(), a.ID, a.RequestedBy, reason, workflow.MessageRef{})
	if err != nil || got.Status != workflow.StatusDecided {
		h.t.Fatalf("Withdraw(%s) = %s, %v; want decided", a.ID, got.Status, err)
	}
}

// wait waits for the execution to end.
func (h *harness) wait(arn string) sfnlocal.Execution {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	x, err := h.engine.WaitExecution(ctx, arn)
	if err != nil {
		h.t.Fatalf("execution did not end: %v\nhistory:\n%s", err, h.historyText(arn))
	}
	return x
}

// succeeded waits for the execution to succeed and compares its output.
func (h *harness) succeeded(arn string, want any) {
	h.t.Helper()
	x := h.wait(arn)
	if x.Status != sfnlocal.StatusSucceeded {
		h.t.Fatalf("status %s (%s: %s), want SUCCEEDED\nhistory:\n%s", x.Status, x.Error, x.Cause, h.historyText(arn))
	}
	if diff := cmp.Diff(normalize(h.t, want), normalize(h.t, x.Output)); diff != "" {
		h.t.Errorf("execution output (-want +got):\n%s", diff)
	}
}

// failed waits for the execution to fail and compares error and cause.
func (h *harness) failed(arn, wantError, wantCause string) {
	h.t.Helper()
	x := h.wait(arn)
	if x.Status != sfnlocal.StatusFailed || x.Error != wantError || x.Cause != wantCause {
		h.t.Errorf("execution ended %s with\n error %q\n cause %q\nwant FAILED with\n error %q\n cause %q", x.Status, x.Error, x.Cause, wantError, wantCause)
	}
}

// submission is a TaskSubmitted event: the notifier's answer as Step
// Functions recorded it, inside the lambda:invoke result's Payload.
type submission struct {
	State      string
	ApprovalID string
	Channel    string
	TS         string
}

// submissions returns the TaskSubmitted events of the execution, in order.
func (h *harness) submissions(arn string) []submission {
	h.t.Helper()
	var out []submission
	state := ""
	for _, ev := range h.history(arn) {
		switch d := ev.Details.(type) {
		case *sfnlocal.StateEnteredEventDetails:
			state = d.Name
		case *sfnlocal.TaskOutputEventDetails:
			if ev.Type != sfnlocal.EventTaskSubmitted {
				continue
			}
			var o struct {
				Payload notifier.Response
			}
			if err := json.Unmarshal([]byte(d.Output), &o); err != nil {
				h.t.Fatalf("TaskSubmitted output %s: %v", d.Output, err)
			}
			out = append(out, submission{State: state, ApprovalID: o.Payload.ApprovalID, Channel: o.Payload.Channel, TS: o.Payload.TS})
		}
	}
	return out
}

// checkSubmissions checks that the history holds one TaskSubmitted per
// Slack post, carrying the approval ID, channel and ts the notifier got.
func (h *harness) checkSubmissions(arn string) {
	h.t.Helper()
	var want []submission
	for _, p := range h.poster.all() {
		want = append(want, submission{State: p.approval.StateName, ApprovalID: p.approval.ID, Channel: p.channel, TS: p.ts})
	}
	if diff := cmp.Diff(want, h.submissions(arn)); diff != "" {
		h.t.Errorf("TaskSubmitted events vs Slack posts (-posts +history):\n%s", diff)
	}
}

func (h *harness) history(arn string) []sfnlocal.HistoryEvent {
	h.t.Helper()
	var events []sfnlocal.HistoryEvent
	in := sfnlocal.GetExecutionHistoryInput{ExecutionArn: arn, MaxResults: 1000}
	for {
		page, err := h.engine.GetExecutionHistory(context.Background(), in)
		if err != nil {
			h.t.Fatalf("GetExecutionHistory: %v", err)
		}
		events = append(events, page.Events...)
		if page.NextToken == "" {
			return events
		}
		in.NextToken = page.NextToken
	}
}

func (h *harness) historyText(arn string) string {
	var b strings.Builder
	for _, ev := range h.history(arn) {
		line, _ := json.Marshal(ev)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// normalize turns JSON text or a Go value into the generic JSON value.
func normalize(t *testing.T, v any) any {
	t.Helper()
	text, ok := v.(string)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		text = string(b)
	}
	var out any
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("not JSON: %s", text)
	}
	return out
}

// post is one request message posted to the fake Slack.
type post struct {
	approval workflow.Approval
	channel  string
	ts       string
}

// poster is a notifier.Poster that records posts and hands each to the
// test through posted.
type poster struct {
	mu     sync.Mutex
	posts  []post
	posted chan post
	fails  []error // returned by the next calls, in order
}

var _ notifier.Poster = (*poster)(nil)

func (p *poster) PostRequest(_ context.Context, a workflow.Approval) (string, string, error) {
	p.mu.Lock()
	if len(p.fails) > 0 {
		err := p.fails[0]
		p.fails = p.fails[1:]
		p.mu.Unlock()
		return "", "", err
	}
	ts := fmt.Sprintf("1700000000.%06d", len(p.posts)+1)
	rec := post{approval: a, channel: a.Channel, ts: ts}
	p.posts = append(p.posts, rec)
	p.mu.Unlock()
	p.posted <- rec
	return a.Channel, ts, nil
}

func (p *poster) UpdateMessage(context.Context, workflow.Approval) error { return nil }

func (p *poster) Permalink(_ context.Context, channel, ts string) (string, error) {
	return "https://fake.slack.com/archives/" + channel + "/p" + strings.Replace(ts, ".", "", 1), nil
}

func (p *poster) all() []post {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]post(nil), p.posts...)
}

// calls records the payloads a fake Lambda function received.
type calls[T any] struct {
	mu   sync.Mutex
	list []T
}

func (c *calls[T]) add(v T) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, v)
	return len(c.list)
}

func (c *calls[T]) all() []T {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]T(nil), c.list...)
}
