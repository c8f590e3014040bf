package stepfunctions_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions"
)

// transient marks a wanted error that is not a domain error.
const transient = "transient"

func TestResumer(t *testing.T) {
	tests := []struct {
		name    string
		answer  string // notifier answer format; default notifierAnswer, "-" for none
		arrange func(t *testing.T, f *fixture, a *workflow.Approval)
		act     func(ctx context.Context, t *testing.T, f *fixture, a workflow.Approval) error
		want    string // "" nil, an error code, or transient
		// after the act
		wantState     string
		wantSuccesses int
		wantCalls     map[string]int
		wantInError   string
	}{
		{
			name: "success closes the task", act: succeed,
			wantState: "succeeded", wantSuccesses: 1, wantCalls: map[string]int{"SendTaskSuccess": 1, "GetExecutionHistory": 0},
		},
		{
			name:    "repeated success is confirmed by the history",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) { must(t, succeed(context.Background(), t, f, *a)) },
			act:     succeed, wantState: "succeeded", wantSuccesses: 1,
		},
		{
			name:    "success whose answer was dropped lands once",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) { f.server.DropAfterApply("SendTaskSuccess", 1) },
			act:     succeed, wantState: "succeeded", wantSuccesses: 1, wantCalls: map[string]int{"SendTaskSuccess": 2, "GetExecutionHistory": 1},
		},
		{
			name:    "success after the task timed out",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) { f.server.TimeOut(a.TaskToken.Reveal()) },
			act:     succeed, want: workflow.EEXPIRED, wantState: "timed_out",
		},
		{
			name: "success on a token Step Functions does not know",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
				a.TaskToken = workflow.TaskToken(f.server.StartTask(execARN+"-other", "Approve") + "x")
			},
			act: succeed, want: workflow.EEXPIRED, wantState: "open",
		},
		{
			name: "success after somebody else's success",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
				_, err := f.client.SendTaskSuccess(context.Background(), &sfn.SendTaskSuccessInput{
					TaskToken: aws.String(a.TaskToken.Reveal()), Output: aws.String(`{"approvalId":"ap_console","action":"approved"}`),
				})
				must(t, err)
			},
			act: succeed, want: workflow.EEXPIRED, wantState: "succeeded", wantSuccesses: 1,
		},
		{
			name: "repeated success without an execution ARN cannot be confirmed",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
				must(t, succeed(context.Background(), t, f, *a))
				a.ExecutionARN = ""
			},
			act: succeed, want: workflow.EEXPIRED, wantState: "succeeded", wantSuccesses: 1, wantCalls: map[string]int{"GetExecutionHistory": 0},
		},
		{
			name: "closed task of an execution that no longer exists",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
				f.server.TimeOut(a.TaskToken.Reveal())
				a.ExecutionARN = execARN + "-deleted"
			},
			act: succeed, want: workflow.EEXPIRED, wantState: "timed_out",
		},
		{
			name: "throttled beyond the SDK's retries",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
				f.server.FailNext("SendTaskSuccess", 3, "ThrottlingException")
			},
			act: succeed, want: transient, wantState: "open", wantCalls: map[string]int{"SendTaskSuccess": 3},
			wantInError: "send task success for approval ",
		},
		{
			name: "unavailable, then resumed by the SDK's retry",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
				f.server.FailNext("SendTaskSuccess", 2, "ServiceUnavailable")
			},
			act: succeed, wantState: "succeeded", wantSuccesses: 1, wantCalls: map[string]int{"SendTaskSuccess": 3},
		},
		{
			name: "KMS throttling",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
				f.server.FailNext("SendTaskSuccess", 3, "KmsThrottlingException")
			},
			act: succeed, want: transient, wantState: "open",
		},
		{
			name: "closed task whose history cannot be read",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
				f.server.TimeOut(a.TaskToken.Reveal())
				f.server.FailNext("GetExecutionHistory", 3, "ThrottlingException")
			},
			act: succeed, want: transient, wantState: "timed_out", wantInError: "execution history",
		},
		{
			name: "output that is not JSON",
			act: func(ctx context.Context, t *testing.T, f *fixture, a workflow.Approval) error {
				return f.resumer.Succeed(ctx, a, []byte("approved by U0123"))
			},
			want: transient, wantState: "open", wantInError: "not valid JSON",
		},
		{
			name: "token longer than Step Functions accepts",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
				a.TaskToken = workflow.TaskToken(strings.Repeat(a.TaskToken.Reveal(), 4))
			},
			act: succeed, want: transient, wantState: "open", wantInError: "ValidationException",
		},
		{
			name: "rejection records TaskFailed", act: reject,
			wantState: "failed", wantCalls: map[string]int{"SendTaskFailure": 1},
		},
		{
			name:    "repeated rejection is confirmed by the history",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) { must(t, reject(context.Background(), t, f, *a)) },
			act:     reject, wantState: "failed",
		},
		{
			name:    "rejection whose answer was dropped",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) { f.server.DropAfterApply("SendTaskFailure", 1) },
			act:     reject, wantState: "failed", wantCalls: map[string]int{"SendTaskFailure": 2},
		},
		{
			name: "rejection after a different failure",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
				must(t, f.resumer.Fail(context.Background(), *a, workflow.ErrorApprovalExpired, "No decision was made."))
			},
			act: reject, want: workflow.EEXPIRED, wantState: "failed",
		},
		{
			name: "rejection after the same failure of another approval in the execution",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
				other := f.approval(t, execARN, notifierAnswer)
				must(t, reject(context.Background(), t, f, other))
				f.server.TimeOut(a.TaskToken.Reveal())
			},
			act: reject, want: workflow.EEXPIRED, wantState: "timed_out",
		},
		{
			name:    "repeated rejection when the notifier answer is a lambda:invoke result",
			answer:  `{"ExecutedVersion":"$LATEST","Payload":{"approvalId":%q},"StatusCode":200}`,
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) { must(t, reject(context.Background(), t, f, *a)) },
			act:     reject, wantState: "failed",
		},
		{
			name: "repeated rejection found across history pages",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
				for range 400 {
					f.server.StartTask(execARN, "Other") // 1200 newer events
				}
				must(t, reject(context.Background(), t, f, *a))
			},
			act: reject, wantState: "failed", wantCalls: map[string]int{"GetExecutionHistory": 2},
		},
		{
			name:    "repeated rejection of a task with no notifier answer cannot be confirmed",
			answer:  "-",
			arrange: func(t *testing.T, f *fixture, a *workflow.Approval) { must(t, reject(context.Background(), t, f, *a)) },
			act:     reject, want: workflow.EEXPIRED, wantState: "failed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			answer := tt.answer
			switch answer {
			case "":
				answer = notifierAnswer
			case "-":
				answer = ""
			}
			a := f.approval(t, execARN, answer)
			token := a.TaskToken.Reveal()
			if tt.arrange != nil {
				tt.arrange(t, f, &a)
			}
			before := map[string]int{}
			for op := range tt.wantCalls {
				before[op] = f.server.Calls(op)
			}

			err := tt.act(context.Background(), t, f, a)

			got := workflow.ErrorCode(err)
			if err != nil && got == "" {
				got = transient
			}
			if got != tt.want {
				t.Fatalf("error = %v (code %q), want code %q", err, got, tt.want)
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantInError) {
				t.Errorf("error %q does not mention %q", err, tt.wantInError)
			}
			if err != nil && !strings.Contains(err.Error(), a.ID) {
				t.Errorf("error %q does not name approval %s", err, a.ID)
			}
			assertNoToken(t, err, a)
			if got := f.server.Outcome(token).State; got != tt.wantState {
				t.Errorf("task state = %q, want %q", got, tt.wantState)
			}
			if got := f.server.Successes(); got != tt.wantSuccesses {
				t.Errorf("Successes = %d, want %d", got, tt.wantSuccesses)
			}
			for op, want := range tt.wantCalls {
				if got := f.server.Calls(op) - before[op]; got != want {
					t.Errorf("%s calls = %d, want %d", op, got, want)
				}
			}
		})
	}
}

// assertNoToken fails if err's text holds the task token or a piece of it.
func assertNoToken(t *testing.T, err error, a workflow.Approval) {
	t.Helper()
	if err == nil {
		return
	}
	token := a.TaskToken.Reveal()
	piece := token[len(token)/2 : len(token)/2+40]
	if msg := err.Error(); strings.Contains(msg, token) || strings.Contains(msg, piece) {
		t.Errorf("error text contains the task token: %.200s…", msg)
	}
}

func TestSuccessOutputArrivesByteForByte(t *testing.T) {
	f := newFixture(t)
	a := f.approval(t, execARN, notifierAnswer)
	a.Drafts = []string{"first", "sécond \"draft\" <b>\u2028</b>"}
	d := workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, DecidedBy: "U0123", DecidedAt: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)}
	out, err := d.Output(a)
	must(t, err)
	must(t, f.resumer.Succeed(context.Background(), a, out))
	if got := f.server.Outcome(a.TaskToken.Reveal()); got.State != "succeeded" || got.Output != string(out) {
		t.Errorf("Outcome = %+v, want succeeded with output %s", got, out)
	}
}

func TestRepeatedSuccessRecordsOneTaskSucceeded(t *testing.T) {
	f := newFixture(t)
	a := f.approval(t, execARN, notifierAnswer)
	for i := range 3 {
		if err := succeed(context.Background(), t, f, a); err != nil {
			t.Fatalf("Succeed #%d: %v", i+1, err)
		}
	}
	out, err := f.client.GetExecutionHistory(context.Background(), &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(execARN), MaxResults: 1000})
	must(t, err)
	n := 0
	for _, e := range out.Events {
		if e.Type == types.HistoryEventTypeTaskSucceeded {
			n++
		}
	}
	if n != 1 {
		t.Errorf("history has %d TaskSucceeded events, want 1", n)
	}
}

func TestConcurrentSucceedResumesOnce(t *testing.T) {
	f := newFixture(t)
	a := f.approval(t, execARN, notifierAnswer)
	out := approvedOutput(t, a)
	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = f.resumer.Succeed(context.Background(), a, out) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Succeed #%d: %v", i, err)
		}
	}
	if got := f.server.Successes(); got != 1 {
		t.Errorf("Successes = %d, want 1", got)
	}
}

// blockingAPI answers every call when its context ends.
type blockingAPI struct{ deadlines chan time.Duration }

func (b blockingAPI) wait(ctx context.Context) error {
	d, _ := ctx.Deadline()
	b.deadlines <- time.Until(d)
	<-ctx.Done()
	return ctx.Err()
}

func (b blockingAPI) SendTaskSuccess(ctx context.Context, _ *sfn.SendTaskSuccessInput, _ ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	return nil, b.wait(ctx)
}

func (b blockingAPI) SendTaskFailure(ctx context.Context, _ *sfn.SendTaskFailureInput, _ ...func(*sfn.Options)) (*sfn.SendTaskFailureOutput, error) {
	return nil, b.wait(ctx)
}

func (b blockingAPI) GetExecutionHistory(ctx context.Context, _ *sfn.GetExecutionHistoryInput, _ ...func(*sfn.Options)) (*sfn.GetExecutionHistoryOutput, error) {
	return nil, b.wait(ctx)
}

func (b blockingAPI) SendTaskHeartbeat(ctx context.Context, _ *sfn.SendTaskHeartbeatInput, _ ...func(*sfn.Options)) (*sfn.SendTaskHeartbeatOutput, error) {
	return nil, b.wait(ctx)
}

func TestEveryCallHasItsOwnTimeout(t *testing.T) {
	if got := stepfunctions.New(nil).CallTimeout; got != 10*time.Second {
		t.Errorf("default CallTimeout = %v, want 10s", got)
	}
	api := blockingAPI{deadlines: make(chan time.Duration, 2)}
	r := stepfunctions.New(api)
	r.CallTimeout = 20 * time.Millisecond
	a := workflow.Approval{ID: "ap_1", TaskToken: "token-secret", ExecutionARN: execARN}
	tests := []struct {
		name string
		call func() error
	}{
		{"succeed", func() error { return r.Succeed(context.Background(), a, []byte(`{}`)) }},
		{"fail", func() error { return r.Fail(context.Background(), a, "Rejected", "no") }},
		{"waiting", func() error { _, err := r.Waiting(context.Background(), a); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, context.DeadlineExceeded) || workflow.ErrorCode(err) != "" {
				t.Errorf("error = %v, want a transient context.DeadlineExceeded", err)
			}
			if d := <-api.deadlines; d <= 0 || d > r.CallTimeout {
				t.Errorf("call deadline in %v, want within %v", d, r.CallTimeout)
			}
		})
	}
}
