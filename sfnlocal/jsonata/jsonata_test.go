package jsonata

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

func TestIsExpression(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"{% $states.input %}", true},
		{"{%$x%}", true},
		{"{%\n  $x\n%}", true},
		{" {% $x %}", false},
		{"{% $x %} ", false},
		{"a {% $x %}", false},
		{"$states.input", false},
		{"{%}", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsExpression(tt.in); got != tt.want {
			t.Errorf("IsExpression(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestEval(t *testing.T) {
	t.Parallel()
	vars := stateVars(t)
	tests := []struct {
		name, expr string
		want       any
	}{
		{"input field", "$states.input.title", "Doctor"},
		{"workflow variable", "$customerName", "María"},
		{"execution id", "$states.context.Execution.Id", "arn:aws:states:us-east-1:123456789012:execution:sm:run-1"},
		{"task token", "$states.context.Task.Token", "tok-123"},
		{"result", "$states.result.Payload.status", "APPROVED"},
		{"error output", "$states.errorOutput.Error", "Rejected"},
		{"integer arithmetic stays integer", "$states.input.count * 2 + 1", json.Number("7")},
		{"decimal arithmetic", "$states.input.price * 3", json.Number("7.5")},
		{"division", "1 / 3", json.Number("0.3333333333333333")},
		{"javascript rounding", "0.1 + 0.2", json.Number("0.30000000000000004")},
		{"integer passthrough", "$states.input.count", json.Number("3")},
		{"variable number", "$limit - 1", json.Number("3")},
		{"large integer", "100000000000000000000", json.Number("100000000000000000000")},
		{"exponent from 1e21", "1e21", json.Number("1e+21")},
		{"small decimal", "0.000001", json.Number("0.000001")},
		{"tiny decimal", "1e-7", json.Number("1e-7")},
		{"negative", "-2.5", json.Number("-2.5")},
		{"string concatenation", "'Hello ' & $customerName", "Hello María"},
		{"string with dots", "'a.' & 'b'", "a.b"},
		{"comment-like string", "'x /* y */ z'", "x /* y */ z"},
		{"uppercase", "$uppercase($states.input.title)", "DOCTOR"},
		{"substring", "$substring($states.input.title, 0, 3)", "Doc"},
		{"string conversion", "$string($states.input.count)", "3"},
		{"condition true", "$states.input.count > 2 and $states.input.approved", true},
		{"condition false", "$states.input.title = 'Nurse'", false},
		{"ternary", "$states.input.count >= 3 ? 'many' : 'few'", "many"},
		{"sum of products", "$sum($states.input.orders.(qty * price))", json.Number("35.5")},
		{"map", "$map($states.input.orders, function($o) { $o.id })", []any{"a", "b", "c"}},
		{"filter", "$filter($states.input.orders, function($o) { $o.qty > 1 }).id", []any{"a", "c"}},
		{"predicate", "$states.input.orders[price < 5].id", []any{"b", "c"}},
		{"count", "$count($states.input.orders)", json.Number("3")},
		{"object construction", "{'customer': $customerName, 'total': $states.input.count * 10, 'first': $states.input.orders[0].id}",
			jsonvalue.ObjectOf("customer", "María", "total", json.Number("30"), "first", "a")},
		{"undefined member dropped", "{'a': $states.input.missing, 'b': 1}", jsonvalue.ObjectOf("b", json.Number("1"))},
		{"array construction", "[$states.input.count, 'x', true, null]", []any{json.Number("3"), "x", true, nil}},
		{"block with local variable", "($n := $states.input.count; $n * $n)", json.Number("9")},
		{"null literal", "null", nil},
		{"null input field", "$states.input.note", nil},
		{"null has a type", "$type($states.input.note)", "null"},
		{"null exists", "$exists($states.input.note)", true},
		{"missing does not exist", "$exists($states.input.missing)", false},
		{"keys in member order", "$keys($states.errorOutput)", []any{"Error", "Cause"}},
		{"whitespace around", "  $states.input.title\n", "Doctor"},
		{"one instant per evaluation", "$millis() = $toMillis($now()) and $now() = $now()", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Eval(t.Context(), tt.expr, Env{Vars: vars})
			if err != nil {
				t.Fatalf("Eval(%q): %v", tt.expr, err)
			}
			if diff := cmp.Diff(tt.want, got, asText); diff != "" {
				t.Errorf("Eval(%q) (-want +got):\n%s", tt.expr, diff)
			}
		})
	}
}

func TestEvalErrors(t *testing.T) {
	t.Parallel()
	vars := stateVars(t)
	tests := []struct {
		name, expr, want string
	}{
		{"undefined", "$states.input.missing",
			"The JSONata expression '$states.input.missing' returned nothing (undefined)."},
		{"type error", "$states.input.title + 1",
			`The JSONata expression '$states.input.title + 1' threw an error during evaluation. T2001: The left side of the "+" operator must evaluate to a number`},
		{"syntax error", "1 +",
			"The JSONata expression '1 +' threw an error during evaluation. S0207: Unexpected end of expression"},
		{"eval is not available", "$eval('1')",
			"The JSONata expression '$eval('1')' threw an error during evaluation. T1006: Attempted to invoke a non-function"},
		{"unknown function", "$nope()",
			"The JSONata expression '$nope()' threw an error during evaluation. T1006: Attempted to invoke a non-function"},
		{"error function", "$error('boom')",
			"The JSONata expression '$error('boom')' threw an error during evaluation. D3137: boom"},
		{"function result", "$uppercase",
			"The JSONata expression '$uppercase' returned an unsupported result type."},
		{"unassigned variable", "$notAssigned",
			"The JSONata expression '$notAssigned' returned nothing (undefined)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Eval(t.Context(), tt.expr, Env{Vars: vars})
			var got *Error
			if !errors.As(err, &got) {
				t.Fatalf("Eval(%q) error = %v, want *Error", tt.expr, err)
			}
			want := &Error{Name: "States.QueryEvaluationError", Message: tt.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Eval(%q) error (-want +got):\n%s", tt.expr, diff)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	if err := Validate("$states.input.a + 1"); err != nil {
		t.Errorf("Validate(valid) = %v", err)
	}
	err := Validate("($x := ")
	if err == nil || !strings.Contains(err.Error(), "States.QueryEvaluationError") {
		t.Errorf("Validate(invalid) = %v, want a States.QueryEvaluationError", err)
	}
}

// Variables bound in one evaluation must not leak into the next one of the
// same (cached) expression.
func TestEvalDoesNotLeakVariables(t *testing.T) {
	t.Parallel()
	if _, err := Eval(t.Context(), "$leak", Env{Vars: Vars{"leak": "first"}}); err != nil {
		t.Fatal(err)
	}
	if got, err := Eval(t.Context(), "$leak", Env{Vars: Vars{}}); err == nil {
		t.Errorf("Eval($leak) without the variable = %v, want undefined error", got)
	}
}

// The result must be a fresh value: changing it must not change the input.
func TestEvalDoesNotAliasInput(t *testing.T) {
	t.Parallel()
	items := []any{"a"}
	got, err := Eval(t.Context(), "$states.input", Env{Vars: Vars{"states": jsonvalue.ObjectOf("input", jsonvalue.ObjectOf("items", items))}})
	if err != nil {
		t.Fatal(err)
	}
	gotItems, _ := got.(*jsonvalue.Object).Get("items")
	gotItems.([]any)[0] = "changed"
	if items[0] != "a" {
		t.Error("changing the result changed the input")
	}
}
