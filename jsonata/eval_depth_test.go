package jsonata

import (
	"errors"
	"strings"
	"testing"
)

// TestDepthLimit checks that runaway recursion is error U1001 rather than
// a stack overflow, that tail calls do not count, and that MaxDepth is
// honoured.
func TestDepthLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		expr     string
		maxDepth int
		want     any    // the result, when no error
		wantErr  string // the error code
	}{
		{name: "infinite recursion", expr: `($f := function($n){ 1 + $f($n + 1) }; $f(0))`, wantErr: "U1001"},
		{name: "mutual recursion", expr: `($a := function(){ 1 + $b() }; $b := function(){ 1 + $a() }; $a())`, wantErr: "U1001"},
		{name: "deep but bounded recursion", expr: `($f := function($n){ $n = 0 ? 0 : 1 + $f($n - 1) }; $f(1000))`, want: float64(1000)},
		{name: "tail recursion does not grow", expr: `($f := function($n, $acc){ $n = 0 ? $acc : $f($n - 1, $acc + 1) }; $f(20000, 0))`, want: float64(20000)},
		{name: "long tail recursion", expr: `($f := function($n){ $n > 20000 ? $n : $f($n + 1) }; $f(0))`, want: float64(20001)},
		{name: "small MaxDepth", expr: `($f := function($n){ $n = 0 ? 0 : 1 + $f($n - 1) }; $f(100))`, maxDepth: 50, wantErr: "U1001"},
		{name: "MaxDepth large enough", expr: `($f := function($n){ $n = 0 ? 0 : 1 + $f($n - 1) }; $f(100))`, maxDepth: 1000, want: float64(100)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := checkEval(t, tt.expr, &Options{MaxDepth: tt.maxDepth}, tt.want, tt.wantErr)
			if e != nil && !strings.Contains(e.Message, "Stack overflow") {
				t.Errorf("message %q does not say what happened", e.Message)
			}
		})
	}
}

// TestParseDepthLimit checks that absurdly nested expression text is an
// error, not a stack overflow.
// Its cases run one at a time, and not beside other tests: a 100,000-term
// expression holds a few hundred megabytes under -race.
func TestParseDepthLimit(t *testing.T) {
	tests := []struct {
		name    string
		expr    string
		wantErr bool
	}{
		{name: "nested parentheses", expr: strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000), wantErr: true},
		{name: "nested arrays", expr: strings.Repeat("[", 100000) + strings.Repeat("]", 100000), wantErr: true},
		{name: "long negation chain", expr: strings.Repeat("-", 100000) + "1", wantErr: true},
		{name: "reasonable nesting", expr: strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200)},
		{name: "long flat sum", expr: "1" + strings.Repeat(" + 1", 3000)},
		{name: "absurdly long flat sum", expr: "1" + strings.Repeat(" + 1", 100000), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.expr)
			var e *Error
			if tt.wantErr {
				if !errors.As(err, &e) || e.Code != "U1001" {
					t.Fatalf("got %v; want error U1001", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got %v; want no error", err)
			}
		})
	}
}
