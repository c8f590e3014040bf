package stepfunctions

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/sfnapprovals/approvals/workflow"
)

// DescribeAPI is the part of the Step Functions client Executions uses;
// *sfn.Client implements it.
type DescribeAPI interface {
	DescribeExecution(ctx context.Context, in *sfn.DescribeExecutionInput, optFns ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error)
}

var (
	_ DescribeAPI         = (*sfn.Client)(nil)
	_ workflow.Executions = (*Executions)(nil)
)

// Executions implements workflow.Executions with DescribeExecution, which
// needs states:DescribeExecution on the executions (plus kms:Decrypt for
// executions encrypted with a customer-managed key). It is safe for
// concurrent use. Each call counts against the account's DescribeExecution
// quota (about 15 a second, shared with everything else): see
// workflow.ExecutionChecks for how the bot bounds them.
type Executions struct {
	client DescribeAPI
	// CallTimeout bounds each call, SDK retries included; zero or less
	// means DefaultCallTimeout.
	CallTimeout time.Duration
}

// NewExecutions returns an Executions that asks Step Functions through
// client.
func NewExecutions(client DescribeAPI) *Executions {
	return &Executions{client: client, CallTimeout: DefaultCallTimeout}
}

// Execution returns the execution's status and when it stopped (zero while
// it runs). ExecutionDoesNotExist (never started, or its history is gone
// after 90 days) is an ENOTFOUND *workflow.Error; any other error names
// the execution and unwraps to the SDK's error.
func (e *Executions) Execution(ctx context.Context, executionARN string) (workflow.Execution, error) {
	d := e.CallTimeout
	if d <= 0 {
		d = DefaultCallTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	out, err := e.client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(executionARN)})
	var missing *types.ExecutionDoesNotExist
	switch {
	case errors.As(err, &missing):
		return workflow.Execution{}, workflow.Errorf(workflow.ENOTFOUND, "Step Functions does not know execution %s", executionARN)
	case err != nil:
		return workflow.Execution{}, &callError{msg: "describe execution " + executionARN + ": " + err.Error(), err: err}
	}
	return workflow.Execution{
		ARN:       executionARN,
		Status:    workflow.ExecutionStatus(out.Status),
		StoppedAt: aws.ToTime(out.StopDate),
	}, nil
}
