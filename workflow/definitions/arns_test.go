package definitions_test

import (
	"context"
	"testing"

	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/workflow"
)

// TestEngineExecutionARNsAreAccepted checks that the execution ARNs the
// local engine mints, standard and express, named or not, are accepted as
// a request's executionArn.
func TestEngineExecutionARNsAreAccepted(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	const def = `{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}`
	for _, typ := range []sfnlocal.StateMachineType{sfnlocal.Standard, sfnlocal.Express} {
		sm, err := h.engine.CreateStateMachine(ctx, sfnlocal.CreateStateMachineInput{
			Name: "arn-" + string(typ), Definition: def, Type: typ, RoleArn: "arn:aws:iam::123456789012:role/approvals-example",
		})
		if err != nil {
			t.Fatalf("CreateStateMachine(%s): %v", typ, err)
		}
		for _, name := range []string{"", "run-1"} {
			x, err := h.engine.StartExecution(ctx, sfnlocal.StartExecutionInput{StateMachineArn: sm.StateMachineArn, Name: name})
			if err != nil {
				t.Fatalf("StartExecution(%s, %q): %v", typ, name, err)
			}
			if !workflow.IsExecutionARN(x.ExecutionArn) {
				t.Errorf("%s execution ARN %s is refused", typ, x.ExecutionArn)
			}
		}
	}
}
