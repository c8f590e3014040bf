package stepfunctions_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

const execARN = "arn:aws:states:us-east-1:123456789012:execution:Approvals:run-1"

// notifierAnswer is what the notifier returns; Step Functions records it
// as the TaskSubmitted output.
const notifierAnswer = `{"approvalId":%q,"channel":"C0123","ts":"1700000000.000100"}`

type fixture struct {
	server  *stepfunctionstest.Server
	client  *sfn.Client
	resumer *stepfunctions.Resumer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	s := stepfunctionstest.NewServer()
	t.Cleanup(s.Close)
	client := stepfunctionstest.NewClient(context.Background(), s.URL())
	return &fixture{server: s, client: client, resumer: stepfunctions.New(client)}
}

// approval opens a task in the execution and records answer (a format for
// the approval ID; "" records none) as its TaskSubmitted output.
func (f *fixture) approval(t *testing.T, arn, answer string) workflow.Approval {
	t.Helper()
	id := workflow.NewApprovalID()
	token := f.server.StartTask(arn, "Approve")
	if answer != "" {
		f.server.Submit(token, []byte(fmt.Sprintf(answer, id)))
	}
	return workflow.Approval{ID: id, TaskToken: workflow.TaskToken(token), ExecutionARN: arn, StateName: "Approve"}
}

// approvedOutput is the SendTaskSuccess output of an approval of a.
func approvedOutput(t *testing.T, a workflow.Approval) []byte {
	t.Helper()
	d := workflow.Decision{Action: workflow.ActionApprove, DraftIndex: workflow.NoDraft, DecidedBy: "U0123", DecidedAt: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)}
	out, err := d.Output(a)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func succeed(ctx context.Context, t *testing.T, f *fixture, a workflow.Approval) error {
	t.Helper()
	return f.resumer.Succeed(ctx, a, approvedOutput(t, a))
}

const rejectCause = "Not this week, please."

func reject(ctx context.Context, t *testing.T, f *fixture, a workflow.Approval) error {
	t.Helper()
	return f.resumer.Fail(ctx, a, workflow.ErrorRejected, rejectCause)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
