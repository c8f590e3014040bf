package jsonata

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestContextStopsEvaluation runs endless loops (tail calls never grow the
// stack, so nothing else ends them) and checks that cancelling
// Options.Context once each is running ends it promptly with the
// context's error.
func TestContextStopsEvaluation(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, expr string }{
		{"tail recursion", `($f := function(){ $f() }; $f())`},
		{"tail recursion with arguments", `($f := function($n){ $f($n + 1) }; $f(0))`},
		{"conditional tail recursion", `($f := function($n){ $n < 0 ? 0 : $f($n + 1) }; $f(0))`},
		{"mutual tail recursion", `($a := function(){ $b() }; $b := function(){ $a() }; $a())`},
		{"tail recursion through a block", `($f := function($n){ ($m := $n + 1; $f($m)) }; $f(0))`},
		{"endless loop inside $map", `$map([1, 2], function($v){ ($f := function(){ $f() }; $f()) })`},
		{"endless loop inside a transform", `{'a': 1} ~> |$|{'b': ($f := function(){ $f() }; $f())}|`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			expr, err := Parse("($started(); " + tt.expr + ")")
			if err != nil {
				t.Fatal(err)
			}
			started := make(chan struct{})
			lib := NewLibrary([]*Builtin{{Name: "started", Signature: "<:b>", Impl: func(*Call, []any) (any, error) {
				close(started)
				return true, nil
			}}})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := expr.Evaluate(Undefined, nil, &Options{Library: lib, Context: ctx})
				done <- err
			}()
			<-started // the loop is running: cancel it midway
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("error = %v, want context.Canceled", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("evaluation still running 10s after its context was cancelled")
			}
		})
	}
}

// An evaluation whose context has a deadline stops at the deadline.
func TestContextDeadlineStopsEvaluation(t *testing.T) {
	t.Parallel()
	expr, err := Parse(`($f := function(){ $f() }; $f())`)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if _, err := expr.Evaluate(Undefined, nil, &Options{Context: ctx}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error = %v, want context.DeadlineExceeded", err)
	}
}

// A context that is already done stops the evaluation before it starts;
// one that never ends changes nothing.
func TestContextBeforeAndWithout(t *testing.T) {
	t.Parallel()
	expr, err := Parse(`$sum([1..5000].($ * 2))`)
	if err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(t.Context())
	cancel()
	if got, err := expr.Evaluate(Undefined, nil, &Options{Context: done}); !errors.Is(err, context.Canceled) {
		t.Errorf("with a cancelled context: %v, %v; want context.Canceled", got, err)
	}
	for _, ctx := range []context.Context{nil, context.Background(), t.Context()} {
		if got, err := expr.Evaluate(Undefined, nil, &Options{Context: ctx}); err != nil || got != float64(25005000) {
			t.Errorf("with context %v: %v, %v; want 25005000", ctx, got, err)
		}
	}
}
