package stepfunctions

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/sfnapprovals/approvals/workflow"
)

// settle translates a failed SendTask* call into what workflow.Resumer
// promises: nil if our result landed after all, EEXPIRED if the task is
// gone, otherwise an error naming the attempt.
func (r *Resumer) settle(ctx context.Context, a workflow.Approval, op string, err error, ours result) error {
	attempt := fmt.Sprintf("%s for approval %s", op, a.ID)
	token := a.TaskToken.Reveal()
	var (
		timedOut      *types.TaskTimedOut
		invalidToken  *types.InvalidToken
		doesNotExist  *types.TaskDoesNotExist
		invalidOutput *types.InvalidOutput
	)
	switch {
	case errors.As(err, &timedOut):
		if a.ExecutionARN == "" {
			return expired(a)
		}
		landed, herr := r.landed(ctx, a.ExecutionARN, ours)
		if executionGone(herr) {
			return expired(a)
		}
		if herr != nil {
			return wrap(attempt+": the task is closed, and reading the execution history to see whether by us failed", herr, token)
		}
		if landed {
			return nil
		}
		return expired(a)
	case errors.As(err, &invalidToken), errors.As(err, &doesNotExist):
		return expired(a)
	case errors.As(err, &invalidOutput):
		return &callError{msg: attempt + ": the output is not valid JSON", err: err}
	}
	return wrap(attempt, err, token)
}

// closedTask reports whether a SendTask* call failed because the task
// attempt is closed or its token unknown.
func closedTask(err error) bool {
	var (
		timedOut     *types.TaskTimedOut
		invalidToken *types.InvalidToken
		doesNotExist *types.TaskDoesNotExist
	)
	return errors.As(err, &timedOut) || errors.As(err, &invalidToken) || errors.As(err, &doesNotExist)
}

// executionGone reports whether a history read failed because the
// execution does not exist (or never could): nothing can resume it, and
// no retry will tell more.
func executionGone(err error) bool {
	var (
		doesNotExist *types.ExecutionDoesNotExist
		invalidArn   *types.InvalidArn
	)
	return errors.As(err, &doesNotExist) || errors.As(err, &invalidArn)
}

func expired(a workflow.Approval) error {
	return workflow.Errorf(workflow.EEXPIRED, "approval %s: the task timed out or was closed before the decision reached it", a.ID)
}

// callError is a failed call. Its message names the attempt and never the
// task token; it unwraps to the SDK's error for errors.As.
type callError struct {
	msg string
	err error
}

func (e *callError) Error() string { return e.msg }
func (e *callError) Unwrap() error { return e.err }

// wrap is fmt.Errorf("%s: %w", attempt, err) with every occurrence of the
// token in err's text redacted: an API error message may echo request
// fields.
func wrap(attempt string, err error, token string) error {
	msg := err.Error()
	if token != "" {
		msg = strings.ReplaceAll(msg, token, "[redacted]")
	}
	return &callError{msg: attempt + ": " + msg, err: err}
}
