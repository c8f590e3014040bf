package jsonata

import (
	"encoding/json"
	"errors"
	"testing"

	lang "github.com/sfnapprovals/approvals/jsonata"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// TestEvaluationLimits checks results JSON cannot hold and evaluations
// that must fail the state rather than the engine.
func TestEvaluationLimits(t *testing.T) {
	t.Parallel()
	// Values are limited as in the engine, at smaller limits: an array at
	// the engine's limit takes gigabytes to build (under -race).
	small := Env{MaxItems: 1 << 16, MaxStringBytes: 1 << 20}
	tests := []struct {
		name, expr, want string
		env              Env
	}{
		{"unbounded recursion", "($f := function($n) { 1 + $f($n + 1) }; $f(0))",
			"The JSONata expression '($f := function($n) { 1 + $f($n + 1) }; $f(0))' specified for the field 'Output' threw an error during evaluation. U1001: Stack overflow error: Check for non-terminating recursive function.  Consider rewriting as tail-recursive.", Env{}},
		{"infinity", "1 / 0",
			"The JSONata expression '1 / 0' specified for the field 'Output' threw an error during evaluation. D1001: Number out of range: Infinity", Env{}},
		{"negative infinity in an object", "{'v': -1 / 0}",
			"The JSONata expression '{'v': -1 / 0}' specified for the field 'Output' threw an error during evaluation. D1001: Number out of range: -Infinity", Env{}},
		{"NaN in an array", "[1, 0 / 0]",
			"The JSONata expression '[1, 0 / 0]' specified for the field 'Output' threw an error during evaluation. D1001: Number out of range: NaN", Env{}},
		{"function in an object", "{'f': $uppercase}",
			"The JSONata expression '{'f': $uppercase}' specified for the field 'Output' threw an error during evaluation: a function cannot be converted to JSON", Env{}},
		{"doubling array", "$reduce([1..30], function($a, $b){$append($a, $a)}, [1])",
			"The JSONata expression '$reduce([1..30], function($a, $b){$append($a, $a)}, [1])' specified for the field 'Output' threw an error during evaluation: Invalid array length", small},
		{"doubling text", "$reduce([1..30], function($a, $b){$a & $a}, 'x')",
			"The JSONata expression '$reduce([1..30], function($a, $b){$a & $a}, 'x')' specified for the field 'Output' threw an error during evaluation: Invalid string length", small},
		{"shared arrays copied out", "$reduce([1..30], function($a, $b){[[$a], [$a]]}, [1])",
			"The JSONata expression '$reduce([1..30], function($a, $b){[[$a], [$a]]}, [1])' specified for the field 'Output' threw an error during evaluation: Invalid array length", small},
		{"arrays shared exponentially often", "$reduce([1..60], function($a, $b){[[$a], [$a]]}, [1])",
			"The JSONata expression '$reduce([1..60], function($a, $b){[[$a], [$a]]}, [1])' specified for the field 'Output' threw an error during evaluation: Invalid array length", Env{}},
		{"regex", "/ab+/",
			"The JSONata expression '/ab+/' specified for the field 'Output' returned an unsupported result type.", Env{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := TemplateField(t.Context(), "Output", "{% "+tt.expr+" %}", tt.env)
			var got *Error
			if !errors.As(err, &got) {
				t.Fatalf("error = %v, want *Error", err)
			}
			want := &Error{Name: ErrorName, Message: tt.want, Field: "Output"}
			if *got != *want {
				t.Errorf("error\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// The engine's evaluations (Env{}) take lang's default limits, which
// lang's tests check, and copy results out within lang.DefaultMaxItems
// members; a limit set in Env applies to both.
func TestEvaluationDefaultLimits(t *testing.T) {
	t.Parallel()
	ev, err := newEvaluation(t.Context(), Env{})
	if err != nil {
		t.Fatal(err)
	}
	if ev.opts.MaxItems != 0 || ev.opts.MaxStringBytes != 0 {
		t.Errorf("Env{} evaluates with MaxItems %d, MaxStringBytes %d; want 0 and 0, lang's defaults", ev.opts.MaxItems, ev.opts.MaxStringBytes)
	}
	if got := copyRoom(0); got != lang.DefaultMaxItems {
		t.Errorf("results are copied out within %d members, want lang.DefaultMaxItems", got)
	}
	small := []any{[]any{1.0}, []any{1.0}} // 4 members in all
	if _, err := fromLang(small, 4); err != nil {
		t.Errorf("copying 4 members within 4: %v", err)
	}
	if _, err := fromLang(small, 3); err != errTooLarge {
		t.Errorf("copying 4 members within 3: error %v, want %v", err, errTooLarge)
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

// fromLang copies a shared array wherever it is reached, so it counts
// the members it copies and stops past its room instead of copying
// exponentially many.
func TestFromLangBoundsSharedArrays(t *testing.T) {
	t.Parallel()
	shared := any([]any{1.0})
	for range 60 {
		shared = []any{shared, shared}
	}
	small := []any{[]any{1.0}, []any{1.0}} // 4 members in all
	tests := []struct {
		name    string
		value   any
		room    int
		wantErr error
	}{
		{"shared arrays", shared, 1_000_000, errTooLarge},
		{"fits", small, 4, nil},
		{"one member too many", small, 3, errTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			room := tt.room
			if _, err := fromLangWithin(tt.value, &room); err != tt.wantErr {
				t.Errorf("error = %v, want %v", err, tt.wantErr)
			}
		})
	}
}
