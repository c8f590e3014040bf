package sfnlocal

import (
	"errors"
	"strings"
	"testing"
)

// An evaluator that panics fails the state, not the process.
func TestGuardTurnsPanicsIntoErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	th := &thread{x: &execution{e: h.e, arn: "arn:aws:states:us-east-1:123456789012:execution:m:x"}, st: &state{name: "S"}}
	err := th.guard("Output", func() error { panic("boom") })
	var p *evalPanic
	if !errors.As(err, &p) || !strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), "'Output'") {
		t.Errorf("guard = %v, want an evalPanic naming the field and the panic", err)
	}
	if err := th.guard("Output", func() error { return nil }); err != nil {
		t.Errorf("guard = %v for an evaluation that returned", err)
	}
}

// JSONata expressions that once made the evaluator panic (found by
// FuzzExecution and the jsonata owner's exploration) fail the execution
// with States.QueryEvaluationError.
func TestJSONataPanicsFailTheState(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{`$power(2, 1 % 0)`, `$power(-1 % 0, 10)`, `([1])(2)`} {
		t.Run(expr, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			x := h.run(`{"QueryLanguage":"JSONata","StartAt":"P","States":{"P":{"Type":"Pass","Output":"{% `+expr+` %}","End":true}}}`, `{}`)
			if x.Status != StatusFailed || x.Error != errQueryEvaluation {
				t.Errorf("execution %s %s (%s), want FAILED %s", x.Status, x.Error, x.Cause, errQueryEvaluation)
			}
		})
	}
}
