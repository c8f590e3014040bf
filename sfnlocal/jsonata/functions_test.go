package jsonata

import (
	"encoding/json"
	"errors"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

func TestStepFunctionsFunctions(t *testing.T) {
	t.Parallel()
	vars := stateVars(t)
	n := func(s string) json.Number { return json.Number(s) }
	tests := []struct {
		name, expr string
		want       any
	}{
		{"partition", "$partition([1,2,3,4,5,6,7,8,9], 3)", []any{[]any{n("1"), n("2"), n("3")}, []any{n("4"), n("5"), n("6")}, []any{n("7"), n("8"), n("9")}}},
		{"partition remainder", "$partition([1,2,3,4,5], 2)", []any{[]any{n("1"), n("2")}, []any{n("3"), n("4")}, []any{n("5")}}},
		{"partition larger than array", "$partition(['a'], 5)", []any{[]any{"a"}}},
		{"partition objects", "$partition($states.input.orders, 2)[1].id", "c"},
		{"range", "$range(0, 10, 2)", []any{n("0"), n("2"), n("4"), n("6"), n("8"), n("10")}},
		{"range descending", "$range(3, 1, -1)", []any{n("3"), n("2"), n("1")}},
		{"range end not on step", "$range(0, 5, 2)", []any{n("0"), n("2"), n("4")}},
		{"range of one", "$range(4, 4, 1)", n("4")},
		{"hash SHA-256", "$hash('input data', 'SHA-256')", "b4a697a057313163aee33cd8d40c66e9f0f177e00cac2de32475ffff6169c3e3"},
		{"hash MD5", "$hash('', 'MD5')", "d41d8cd98f00b204e9800998ecf8427e"},
		{"hash SHA-1", "$hash('abc', 'SHA-1')", "a9993e364706816aba3e25717850c26c9cd0d89d"},
		{"hash SHA-384 length", "$length($hash('abc', 'SHA-384'))", n("96")},
		{"hash SHA-512 length", "$length($hash('abc', 'SHA-512'))", n("128")},
		{"random seeded like java.util.Random", "$random(42)", n("0.7275636800328681")},
		{"random seeded is repeatable", "$random($states.input.count) = $random(3)", true},
		{"random in range", "($r := $random(); $r >= 0 and $r < 1)", true},
		{"parse object", "$parse($states.input.payload)", jsonvalue.ObjectOf("ok", true, "n", []any{n("1"), n("2.5")})},
		{"parse path", "$parse($states.input.payload).n[1]", n("2.5")},
		{"parse null", "$parse('null')", nil},
		{"parse string", `$parse('"s"')`, "s"},
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

func TestUUID(t *testing.T) {
	t.Parallel()
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[any]bool{}
	for range 100 {
		got, err := Eval(t.Context(), "$uuid()", Env{})
		if err != nil {
			t.Fatal(err)
		}
		s, _ := got.(string)
		if !v4.MatchString(s) {
			t.Fatalf("$uuid() = %v, want a version 4 UUID", got)
		}
		if seen[s] {
			t.Fatalf("$uuid() repeated %s", s)
		}
		seen[s] = true
	}
}

func TestStepFunctionsFunctionErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, expr, want string
	}{
		{"partition negative size", "$partition([1,2], -2)",
			"The JSONata expression '$partition([1,2], -2)' threw an error during evaluation. D3137: Second argument must be zero or greater"},
		{"partition of a string", "$partition('ab', 1)",
			`The JSONata expression '$partition('ab', 1)' threw an error during evaluation. T0410: Argument 1 of function "partition" does not match function signature`},
		{"partition zero size", "$partition([1], 0)",
			"The JSONata expression '$partition([1], 0)' returned nothing (undefined)."},
		{"range wrong direction", "$range(5, 1, 1)",
			"The JSONata expression '$range(5, 1, 1)' returned nothing (undefined)."},
		{"range non-number", "$range('a', 1, 1)",
			`The JSONata expression '$range('a', 1, 1)' threw an error during evaluation. T0410: Argument 1 of function "range" does not match function signature`},
		{"range too large", "$range(0, 100000000, 1)",
			"The JSONata expression '$range(0, 100000000, 1)' threw an error during evaluation. D2014: The size of the sequence allocated by $range must not exceed 10000000. Attempted to allocate 100000001."},
		{"hash unknown algorithm", "$hash('a', 'sha256')",
			"The JSONata expression '$hash('a', 'sha256')' threw an error during evaluation. D3137: Hash algorithm 'sha256' must be one of SHA-1, SHA-384, SHA-256, SHA-512, MD5"},
		{"hash of a number", "$hash(1, 'MD5')",
			`The JSONata expression '$hash(1, 'MD5')' threw an error during evaluation. T0410: Argument 1 of function "hash" does not match function signature`},
		{"random seed not a number", "$random('x')",
			`The JSONata expression '$random('x')' threw an error during evaluation. T0410: Argument 1 of function "random" does not match function signature`},
		{"uuid takes no argument", "$uuid(1)",
			`The JSONata expression '$uuid(1)' threw an error during evaluation. T0410: Argument 1 of function "uuid" does not match function signature`},
		{"parse invalid", "$parse('{bad')",
			"The JSONata expression '$parse('{bad')' threw an error during evaluation. D3137: Invalid JSON"},
		{"parse trailing data", "$parse('1 2')",
			"The JSONata expression '$parse('1 2')' threw an error during evaluation. D3137: Invalid JSON"},
		{"parse of undefined", "$parse($states.input.missing)",
			"The JSONata expression '$parse($states.input.missing)' returned nothing (undefined)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Eval(t.Context(), tt.expr, Env{Vars: Vars{"states": jsonvalue.ObjectOf("input", jsonvalue.NewObject(0))}})
			var got *Error
			if !errors.As(err, &got) {
				t.Fatalf("Eval(%q) error = %v, want *Error", tt.expr, err)
			}
			if diff := cmp.Diff(tt.want, got.Message); diff != "" {
				t.Errorf("Eval(%q) message (-want +got):\n%s", tt.expr, diff)
			}
		})
	}
}
