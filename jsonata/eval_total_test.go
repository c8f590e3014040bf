package jsonata

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// The totals count what an evaluation builds, kept or dropped: values
// that each fit their own limit fail together once their sum passes
// MaxTotalItems or MaxTotalStringBytes, and what fits passes.
func TestBudgetTotals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, expr string
		opts       Options
		wantErr    string // prefix; "" when the evaluation must succeed
	}{
		// Each [1..1000] builds its range, then the array holding it.
		{"ranges each within the value limit", `$count([[1..1000], [1..1000], [1..1000]])`, Options{MaxItems: 1000, MaxTotalItems: 5000}, "Invalid array length: the evaluation built more than 5000 array and object members in all"},
		{"ranges within the total", `$count([[1..1000], [1..1000]])`, Options{MaxItems: 1000, MaxTotalItems: 5000}, ""},
		{"a loop that builds and drops arrays", `$count($map([1..100], function($i){ $count([1..100]) }))`, Options{MaxTotalItems: 5000}, "Invalid array length: the evaluation built more than 5000"},
		{"a loop that builds and drops strings", `$length($reduce([1..2000], function($a, $b){ $a & "0123456789" }, ""))`, Options{MaxTotalStringBytes: 1 << 20}, "Invalid string length: the evaluation built more than 1048576 bytes"},
		{"the same loop, shorter", `$length($reduce([1..200], function($a, $b){ $a & "0123456789" }, ""))`, Options{MaxTotalStringBytes: 1 << 20}, ""},
		{"objects", `$count($map([1..100], function($i){ {"a": $i, "b": [$i, $i]} }))`, Options{MaxTotalItems: 300}, "Invalid array length: the evaluation built more than 300"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			parsed, err := Parse(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			got, err := parsed.Evaluate(Undefined, nil, &tt.opts)
			if tt.wantErr == "" {
				if err != nil || IsUndefined(got) {
					t.Fatalf("got %v, %v; want a value", got, err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != "" || !strings.HasPrefix(e.Message, tt.wantErr) {
				t.Fatalf("got %v, %v; want a code-less %q…", got, err, tt.wantErr)
			}
		})
	}
}

// The expression of issue 11, 16 ranges of ten million members each,
// fails having allocated a bounded amount (unbounded it took 6 GB): with
// the total at 2^20 members, it stops within its second range. It runs
// without t.Parallel so that the allocation counter sees only it.
func TestBudgetTotalBoundsMemory(t *testing.T) {
	expr := `$count([` + strings.TrimSuffix(strings.Repeat(`[1..10000000], `, 16), ", ") + `])`
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e := budgetError(t, expr, &Options{MaxItems: 1 << 20, MaxTotalItems: 1 << 20})
	runtime.ReadMemStats(&after)
	if !strings.HasPrefix(e.Message, "Invalid array length") {
		t.Fatalf("got %v, want Invalid array length", e)
	}
	// The range past MaxItems is refused before it is built; with
	// MaxItems at 10^7 each range is built, then charged: at most two.
	e = budgetError(t, expr, &Options{MaxTotalItems: 1 << 20, MaxItems: 100})
	if !strings.HasPrefix(e.Message, "Invalid array length") {
		t.Fatalf("got %v, want Invalid array length", e)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("allocated %d bytes, want at most 64 MiB", got)
	}
}

// stopProbe is a built-in that cancels its evaluation's context and
// remembers how much work the evaluation had done then.
type stopProbe struct {
	cancel context.CancelFunc
	state  *state
	steps  uint
	work   uint64
}

func (p *stopProbe) library() *Library {
	return NewLibrary([]*Builtin{{Name: "stop", Signature: "<:b>", Impl: func(c *Call, _ []any) (any, error) {
		p.state = c.env.(*state)
		p.steps, p.work = p.state.steps, p.state.work
		p.cancel()
		return true, nil
	}}})
}

// Once its context is done, an evaluation busy in a loop that takes no
// evaluation steps (a range, an aggregate, a sort, $distinct) or in a
// higher-order built-in stops within a bounded amount of further work: at
// most two check intervals of members built, visited or compared, plus
// the one value a plain copy (a path step, $append, $string) finishes
// before it is charged, and 256 evaluation steps. Without the checks each
// of these runs to its end (a $distinct of 100,000 numbers compares
// 5·10^9 pairs).
func TestStopWithinBoundedWork(t *testing.T) {
	t.Parallel()
	big := make([]any, 100_000)
	for i := range big {
		big[i] = float64(i)
	}
	tests := []struct {
		name, expr string
		copied     int // members (or bytes/16) of the one value copied unchecked
	}{
		{"range", `($stop(); [1..10000000])`, 0},
		{"range built-in", `($stop(); $reverse([1..10000000]))`, 0},
		{"sum", `($stop(); $sum($big))`, 0},
		{"max", `($stop(); $max($big))`, 0},
		{"average", `($stop(); $average($big))`, 0},
		{"distinct", `($stop(); $distinct($big))`, 0},
		{"sort", `($stop(); $sort($big, function($a, $b){ $a < $b }))`, 0},
		{"default sort", `($stop(); $sort($big))`, 0},
		{"map", `($stop(); $map($big, function($v){ $v + 1 }))`, 0},
		{"reduce", `($stop(); $reduce($big, function($a, $v){ $a + $v }))`, 0},
		{"filter", `($stop(); $filter($big, function($v){ $v > 1 }))`, 0},
		{"path", `($stop(); $big.($ * 2))`, 100_000},
		{"string", `($stop(); $string($big))`, 588_890 / 16},
		{"append", `($stop(); $count($append($big, $big)))`, 200_000},
		{"distinct of a range", `$distinct(($stop(); [1..100000]))`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			expr, err := Parse(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			p := &stopProbe{cancel: cancel}
			_, err = expr.Evaluate(Undefined, map[string]any{"big": big}, &Options{Library: p.library(), Context: ctx})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error = %v, want context.Canceled", err)
			}
			if p.state == nil {
				t.Fatal("$stop was never called")
			}
			if work, limit := p.state.work-p.work, uint64(2*workCheckInterval+tt.copied); work > limit {
				t.Errorf("%d units of work after the stop, want at most %d", work, limit)
			}
			if steps := p.state.steps - p.steps; steps > stopCheckInterval {
				t.Errorf("%d evaluation steps after the stop, want at most %d", steps, stopCheckInterval)
			}
		})
	}
}
