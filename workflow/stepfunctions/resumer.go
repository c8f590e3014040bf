// Package stepfunctions resumes paused Step Functions executions with a
// person's decision: SendTaskSuccess and SendTaskFailure on the task token,
// with AWS's errors translated into the workflow domain's. Because the
// callback API is not idempotent, a TaskTimedOut answer is checked against
// the execution history to tell "our earlier attempt landed" from "the task
// expired or something else closed it".
package stepfunctions

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/sfnapprovals/approvals/workflow"
)

// API is the part of the Step Functions client the Resumer uses;
// *sfn.Client implements it.
type API interface {
	SendTaskSuccess(ctx context.Context, in *sfn.SendTaskSuccessInput, optFns ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error)
	SendTaskFailure(ctx context.Context, in *sfn.SendTaskFailureInput, optFns ...func(*sfn.Options)) (*sfn.SendTaskFailureOutput, error)
	GetExecutionHistory(ctx context.Context, in *sfn.GetExecutionHistoryInput, optFns ...func(*sfn.Options)) (*sfn.GetExecutionHistoryOutput, error)
	SendTaskHeartbeat(ctx context.Context, in *sfn.SendTaskHeartbeatInput, optFns ...func(*sfn.Options)) (*sfn.SendTaskHeartbeatOutput, error)
}

var (
	_ API              = (*sfn.Client)(nil)
	_ workflow.Resumer = (*Resumer)(nil)
)

// DefaultCallTimeout bounds one Step Functions call, SDK retries included.
const DefaultCallTimeout = 10 * time.Second

// Resumer implements workflow.Resumer on the Step Functions API. It is
// safe for concurrent use. It needs states:SendTaskSuccess,
// states:SendTaskFailure and states:GetExecutionHistory (plus kms:Decrypt
// for executions encrypted with a customer-managed key); Waiting needs
// states:SendTaskHeartbeat.
//
// Succeed and Fail return nil when the result reached the execution, on
// this call or an earlier one; an *workflow.Error with code EEXPIRED when
// the task timed out, was closed by something else, or its token is
// unknown; any other error is transient (throttling, network, 5xx, KMS) or
// a bug (output that is not JSON), and names the approval, never the token.
//
// Step Functions answers TaskTimedOut both for an expired task and for one
// already closed, including by an earlier attempt of ours whose answer was
// lost. When the approval has an ExecutionARN the Resumer reads the
// execution history to tell them apart; without one it must report
// EEXPIRED, so executionArn is strongly recommended in every request.
type Resumer struct {
	client API
	// CallTimeout bounds each call to Step Functions (each history page is
	// one call); zero or less means DefaultCallTimeout.
	CallTimeout time.Duration
}

// New returns a Resumer that calls Step Functions through client.
func New(client API) *Resumer {
	return &Resumer{client: client, CallTimeout: DefaultCallTimeout}
}

// Succeed resumes the execution with SendTaskSuccess and output, which
// must be the JSON of a.Decision.Output (it carries a.ID, which is how a
// landed earlier attempt is recognised).
func (r *Resumer) Succeed(ctx context.Context, a workflow.Approval, output []byte) error {
	callCtx, cancel := r.callContext(ctx)
	_, err := r.client.SendTaskSuccess(callCtx, &sfn.SendTaskSuccessInput{
		TaskToken: aws.String(a.TaskToken.Reveal()),
		Output:    aws.String(string(output)),
	})
	cancel()
	if err == nil {
		return nil
	}
	return r.settle(ctx, a, "send task success", err, succeeded{approvalID: a.ID})
}

// Fail resumes the execution with SendTaskFailure, so a Catch on
// errorName routes it. A landed earlier attempt is recognised by errorName
// and cause on the task whose TaskSubmitted output (the notifier's answer)
// carries a.ID.
func (r *Resumer) Fail(ctx context.Context, a workflow.Approval, errorName, cause string) error {
	callCtx, cancel := r.callContext(ctx)
	_, err := r.client.SendTaskFailure(callCtx, &sfn.SendTaskFailureInput{
		TaskToken: aws.String(a.TaskToken.Reveal()),
		Error:     aws.String(errorName),
		Cause:     aws.String(cause),
	})
	cancel()
	if err == nil {
		return nil
	}
	return r.settle(ctx, a, "send task failure", err, failed{approvalID: a.ID, errorName: errorName, cause: cause})
}

func (r *Resumer) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	d := r.CallTimeout
	if d <= 0 {
		d = DefaultCallTimeout
	}
	return context.WithTimeout(ctx, d)
}

// Waiting asks Step Functions whether the task attempt of a's token still
// waits, with SendTaskHeartbeat: AWS accepts a heartbeat on any waiting
// callback task (HeartbeatSeconds or not) and records no history event for
// it. TaskTimedOut, InvalidToken and TaskDoesNotExist mean the attempt is
// closed (false, nil); any other error is transient and names the
// approval, never the token.
func (r *Resumer) Waiting(ctx context.Context, a workflow.Approval) (bool, error) {
	callCtx, cancel := r.callContext(ctx)
	_, err := r.client.SendTaskHeartbeat(callCtx, &sfn.SendTaskHeartbeatInput{TaskToken: aws.String(a.TaskToken.Reveal())})
	cancel()
	if err == nil {
		return true, nil
	}
	if closedTask(err) {
		return false, nil
	}
	return false, wrap("send task heartbeat for approval "+a.ID, err, a.TaskToken.Reveal())
}
