package jsonata

import (
	"errors"
	"runtime/debug"
	"testing"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// TestTransformCycle checks that a transform whose update puts a value
// inside itself fails as jsonata-js fails to serialise that value (a
// JavaScript TypeError, no code) instead of overflowing the stack in a
// later walk, and that updates that share without cycling still work.
func TestTransformCycle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		expr     string
		input    string
		want     string // the result as JSON, when no error
		circular bool
	}{
		{name: "string of cyclic object", expr: `$string($ ~> |a|{"x": $}|)`, input: `{"a": {}}`, circular: true},
		{name: "cyclic object", expr: `$ ~> |a|{"x": $}|`, input: `{"a": {}}`, circular: true},
		{name: "object holding its parent", expr: `$ ~> |a.b|{"up": $$}|`, input: `{"a": {"b": {}}}`, want: `{"a":{"b":{"up":{"a":{"b":{}}}}}}`},
		{name: "object holding itself", expr: `$ ~> |a.b|{"c": [$]}|`, input: `{"a": {"b": {}}}`, circular: true},
		{name: "array grown", expr: `$ ~> |a|{"3": $}|`, input: `{"a": [[1]]}`, want: `{"a":[[1,null,null,1]]}`},
		{name: "equality of cyclic", expr: `($t := $ ~> |a|{"x": $}|; $t = $t)`, input: `{"a": {}}`, circular: true},
		{name: "shared, not cyclic", expr: `$ ~> |a|{"x": {"y": 1}}|`, input: `{"a": {}}`, want: `{"a":{"x":{"y":1}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			input, err := jsonvalue.Decode([]byte(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			e, err := Parse(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Evaluate(numbersToFloat(input), nil, nil)
			if tt.circular {
				var je *Error
				if !errors.As(err, &je) || je.Code != "" || je.Message != errCircular {
					t.Fatalf("got %v, %v; want the code-less error %q", describe(got, nil), err, errCircular)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := describe(got, nil); d != tt.want {
				t.Errorf("got %s, want %s", d, tt.want)
			}
		})
	}
}

func TestHasCycle(t *testing.T) {
	t.Parallel()
	self := jsonvalue.NewObject(1)
	self.Set("me", []any{self})
	shared := jsonvalue.NewObject(0)
	deep := any(1.0)
	for range 100000 {
		deep = []any{deep}
	}
	tests := []struct {
		name string
		v    any
		want bool
	}{
		{"scalar", 1.0, false},
		{"self through array", self, true},
		{"shared twice", []any{shared, shared}, false},
		{"very deep", deep, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := hasCycle(tt.v); got != tt.want {
				t.Errorf("hasCycle = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDeepValues checks that values nested far deeper than any JSON
// input fail as V8's stack overflow does (a RangeError, no code) instead
// of overflowing Go's stack, in every walk that recurses over them.
// Its cases run one at a time, and not beside other tests: each walk of
// the deep value holds a few hundred megabytes of stack under -race.
func TestDeepValues(t *testing.T) {
	t.Cleanup(debug.FreeOSMemory)
	deep := any(1.0)
	for range maxValueDepth + 10 {
		deep = []any{deep}
	}
	for _, expr := range []string{
		`$string($)`, `$ = $`, `$clone($)`, `$`, `$lookup($, "a")`, `$keys($)`, `**`, `*`, `$spread($)`,
		`$ ~> |$|{}|`, `$boolean($)`, `"" & $`, `$[0]`, `a`,
	} {
		t.Run(expr, func(t *testing.T) {
			e, err := Parse(expr)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Evaluate(deep, nil, nil)
			var je *Error
			if !errors.As(err, &je) || je.Code != "" || je.Message != "Maximum call stack size exceeded" {
				t.Fatalf("got %T, %v; want the code-less stack error", got, err)
			}
		})
	}
}
