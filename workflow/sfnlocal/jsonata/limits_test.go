package jsonata

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/sfnapprovals/approvals/workflow/sfnlocal/internal/jsonvalue"
)

// TestEvaluationLimits checks results JSON cannot hold and evaluations
// that must fail the state rather than the engine.
func TestEvaluationLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, expr, want string
	}{
		{"unbounded recursion", "($f := function($n) { 1 + $f($n + 1) }; $f(0))",
			"The JSONata expression '($f := function($n) { 1 + $f($n + 1) }; $f(0))' specified for the field 'Output' threw an error during evaluation. U1001: Stack overflow error: Check for non-terminating recursive function.  Consider rewriting as tail-recursive."},
		{"infinity", "1 / 0",
			"The JSONata expression '1 / 0' specified for the field 'Output' threw an error during evaluation. D1001: Number out of range: Infinity"},
		{"negative infinity in an object", "{'v': -1 / 0}",
			"The JSONata expression '{'v': -1 / 0}' specified for the field 'Output' threw an error during evaluation. D1001: Number out of range: -Infinity"},
		{"NaN in an array", "[1, 0 / 0]",
			"The JSONata expression '[1, 0 / 0]' specified for the field 'Output' threw an error during evaluation. D1001: Number out of range: NaN"},
		{"function in an object", "{'f': $uppercase}",
			"The JSONata expression '{'f': $uppercase}' specified for the field 'Output' threw an error during evaluation: a function cannot be converted to JSON"},
		{"regex", "/ab+/",
			"The JSONata expression '/ab+/' specified for the field 'Output' threw an error during evaluation: a function cannot be converted to JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := TemplateField(t.Context(), "Output", "{% "+tt.expr+" %}", Env{})
			var got *Error
			if !errors.As(err, &got) {
				t.Fatalf("error = %v, want *Error", err)
			}
			want := &Error{Name: ErrorName, Message: tt.want}
			if *got != *want {
				t.Errorf("error\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// A variable holding a number outside float64's range cannot be bound:
// the error names it.
func TestVariableNumberOutOfRange(t *testing.T) {
	t.Parallel()
	vars := Vars{"states": jsonvalue.ObjectOf("input", jsonvalue.ObjectOf("big", []any{json.Number("1e400")}))}
	_, err := Template(t.Context(), "{% 1 %}", Env{Vars: vars})
	want := &Error{Name: ErrorName, Message: "variable $states: number 1e400 is out of range"}
	if e, ok := errors.AsType[*Error](err); !ok || *e != *want {
		t.Errorf("error = %v, want %v", err, want)
	}
}
