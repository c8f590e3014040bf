package stepfunctions_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/workflow"
)

func TestWaiting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		arrange     func(t *testing.T, f *fixture, a *workflow.Approval)
		want        bool
		wantErr     bool
		wantOutcome string // the task's state afterwards: Waiting changes nothing
	}{
		{name: "waiting task", want: true, wantOutcome: "open"},
		{name: "decided task", arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
			must(t, succeed(context.Background(), t, f, *a))
		}, wantOutcome: "succeeded"},
		{name: "timed out task", arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
			f.server.TimeOut(a.TaskToken.Reveal())
		}, wantOutcome: "timed_out"},
		{name: "token Step Functions does not know", arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
			a.TaskToken += "x"
		}, wantOutcome: "open"},
		{name: "throttled beyond the SDK's retries", arrange: func(t *testing.T, f *fixture, a *workflow.Approval) {
			f.server.FailNext("SendTaskHeartbeat", 3, "ThrottlingException")
		}, wantErr: true, wantOutcome: "open"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			a := f.approval(t, execARN, notifierAnswer)
			token := a.TaskToken.Reveal()
			if tt.arrange != nil {
				tt.arrange(t, f, &a)
			}
			got, err := f.resumer.Waiting(context.Background(), a)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("Waiting = %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), a.ID) {
				t.Errorf("error %q does not name approval %s", err, a.ID)
			}
			assertNoToken(t, err, a)
			if got := f.server.Outcome(token).State; got != tt.wantOutcome {
				t.Errorf("task state after Waiting = %q, want %q", got, tt.wantOutcome)
			}
		})
	}
}
