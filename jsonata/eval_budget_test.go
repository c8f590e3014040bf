package jsonata

import (
	"errors"
	"runtime"
	"runtime/debug"
	"testing"
)

// budgetError evaluates expr and returns its *Error, failing t when the
// evaluation succeeds or fails otherwise.
func budgetError(t *testing.T, expr string, opts *Options) *Error {
	t.Helper()
	parsed, err := Parse(expr)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parsed.Evaluate(Undefined, nil, opts)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s = %v, %v; want an *Error", expr, got, err)
	}
	return e
}

// Values that grow without bound fail with JavaScript's RangeError text
// and no code, whatever builds them.
func TestBudgetStopsGrowth(t *testing.T) {
	t.Parallel()
	const arrays, text = "Invalid array length", "Invalid string length"
	// Small limits reach the same checks as the defaults (tested alone in
	// TestBudgetAtTheDefaultLimits) for a few megabytes: doubling an array
	// to the default limit takes gigabytes, several times that under -race.
	growth := &Options{MaxItems: 1 << 16, MaxStringBytes: 1 << 20}
	tests := []struct {
		name, expr, want string
		opts             *Options
	}{
		{"append doubling", `$reduce([1..26], function($a, $b){$append($a, $a)}, [1])`, arrays, growth},
		{"append doubling 30", `$reduce([1..30], function($a, $b){$append($a, $a)}, [1])`, arrays, growth},
		{"array constructor doubling", `$reduce([1..40], function($a, $b){[$a, $a]}, [1])`, arrays, growth},
		{"nested constructors", `$reduce([1..40], function($a, $b){[$a, [$a, $a]]}, [1])`, arrays, growth},
		{"map doubling strings", `$reduce([1..40], function($a, $b){$map($a, function($s){$s & $s})}, ["ab", "cd"])`, text, growth},
		{"concat doubling", `$reduce([1..40], function($a, $b){$a & $a}, "x")`, text, growth},
		{"join doubling", `$reduce([1..40], function($a, $b){$join([$a, $a])}, "x")`, text, growth},
		{"object constructor in a loop", `$reduce([1..40], function($o, $i){$merge([$o, $each($o, function($v, $k){{$k & $i: $v}}) ~> $merge])}, {"k": 1})`, arrays, &Options{MaxItems: 1 << 12}},
		{"group by in a loop", `$reduce([1..40], function($a, $i){$a.{"k": [$a.k, $a.k]}}, {"k": [1]}).k ~> $count`, arrays, growth},
		{"shared arrays written out", `$string($reduce([1..60], function($a, $b){[[$a], [$a]]}, [1]))`, text, growth},
		{"shared arrays cloned", `$clone($reduce([1..60], function($a, $b){[[$a], [$a]]}, [1]))`, arrays, growth},
		{"shared arrays transformed", `$reduce([1..60], function($a, $b){[[$a], [$a]]}, [{"a": 1}]) ~> |a|{"b": 2}|`, arrays, growth},
		{"shared arrays flattened", `$reduce([1..60], function($a, $b){[[$a], [$a]]}, [1]).*`, arrays, growth},
		{"shared arrays descended", `{"x": $reduce([1..60], function($a, $b){[[$a], [$a]]}, [1])}.**`, arrays, growth},
		{"shared arrays returned", `$reduce([1..60], function($a, $b){[[$a], [$a]]}, [1])`, arrays, growth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := budgetError(t, tt.expr, tt.opts)
			if e.Code != "" || e.Message != tt.want {
				t.Errorf("got %q %q, want code-less %q", e.Code, e.Message, tt.want)
			}
		})
	}
}

// Options.MaxItems and MaxStringBytes set the budget: what fits passes,
// what does not fails.
func TestBudgetOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		expr    string
		opts    Options
		wantErr string // "" when the evaluation must succeed
	}{
		{"range fits", `$count([1..100])`, Options{MaxItems: 100}, ""},
		{"range does not fit", `$count([1..100])`, Options{MaxItems: 99}, "Invalid array length"},
		{"append fits", `$count($reduce([1..100], function($a, $b){$append($a, $b)}, []))`, Options{MaxItems: 100}, ""},
		{"append does not fit", `$count($reduce([1..100], function($a, $b){$append($a, $b)}, []))`, Options{MaxItems: 99}, "Invalid array length"},
		// The limits are per value: a loop that builds and drops values is
		// not charged their total (here 20 MB for a 20 KB text).
		{"loop total not charged", `$length($reduce([1..2000], function($a, $b){$a & "0123456789"}, ""))`, Options{MaxStringBytes: 20_000}, ""},
		{"loop items not charged", `$count($reduce([1..2000], function($a, $b){$append($a, $b)}, []))`, Options{MaxItems: 2000}, ""},
		{"object fits", `$count($keys({"a": 1, "b": 2}))`, Options{MaxItems: 10}, ""},
		{"string fits", `$length("abc" & "def")`, Options{MaxStringBytes: 6}, ""},
		{"string does not fit", `$length("abc" & "defg")`, Options{MaxStringBytes: 6}, "Invalid string length"},
		{"pad does not fit", `$length($pad("x", 100))`, Options{MaxStringBytes: 50}, "Invalid string length"},
		{"string of array does not fit", `$length($string([1..100]))`, Options{MaxStringBytes: 100}, "Invalid string length"},
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
			if !errors.As(err, &e) || e.Message != tt.wantErr {
				t.Fatalf("got %v, %v; want %q", got, err, tt.wantErr)
			}
		})
	}
}

// The doubling $reduce fails having allocated a bounded amount, a small
// multiple of its largest array (unbounded, [1..26] took 3 GB and [1..30]
// would take 17 GB). It runs without t.Parallel so that the process's
// allocation counter sees only this evaluation.
func TestBudgetBoundsMemory(t *testing.T) {
	const expr = `$reduce([1..30], function($a, $b){$append($a, $a)}, [1])`
	tests := []struct {
		name     string
		opts     Options
		maxBytes uint64
	}{
		{"100,000 members", Options{MaxItems: 100_000}, 32 << 20},
		{"1,000,000 members", Options{MaxItems: 1_000_000}, 320 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			e := budgetError(t, expr, &tt.opts)
			runtime.ReadMemStats(&after)
			if e.Message != "Invalid array length" {
				t.Fatalf("got %v, want Invalid array length", e)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > tt.maxBytes {
				t.Errorf("allocated %d bytes, want at most %d", got, tt.maxBytes)
			}
			t.Logf("allocated %d MB", (after.TotalAlloc-before.TotalAlloc)>>20)
		})
	}
}

// The limits of an evaluation without options are the production ones.
func TestBudgetDefaults(t *testing.T) {
	t.Parallel()
	if DefaultMaxItems != 1<<24 || DefaultMaxStringBytes != 64<<20 {
		t.Errorf("defaults %d members, %d bytes; the engine's limits are 2^24 members and 64 MiB", DefaultMaxItems, DefaultMaxStringBytes)
	}
	if DefaultMaxTotalItems != 1<<25 || DefaultMaxTotalStringBytes != 256<<20 {
		t.Errorf("totals %d members, %d bytes; the engine's limits are 2^25 members and 256 MiB", DefaultMaxTotalItems, DefaultMaxTotalStringBytes)
	}
	for _, opts := range []*Options{{}, {MaxDepth: 10}} {
		b := newBudget(opts)
		want := budget{items: DefaultMaxItems, bytes: DefaultMaxStringBytes, max: DefaultMaxItems,
			totalItems: DefaultMaxTotalItems, totalBytes: DefaultMaxTotalStringBytes,
			maxTotalItems: DefaultMaxTotalItems, maxTotalBytes: DefaultMaxTotalStringBytes}
		if b != want {
			t.Errorf("newBudget(%+v) = %+v, want %+v", opts, b, want)
		}
	}
}

// At the default limits, with no options, each kind of check holds at
// its edge. Without t.Parallel the test runs alone, so its few hundred
// megabytes (a 64 MiB string under -race) add to no other test's, and it
// hands them back to the system when done.
func TestBudgetAtTheDefaultLimits(t *testing.T) {
	t.Cleanup(debug.FreeOSMemory) // the tests after this one start small
	const arrays, text = "Invalid array length", "Invalid string length"
	// A string of exactly DefaultMaxStringBytes is built; one byte more is not.
	parsed, err := Parse(`$pad("x", 67108864)`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parsed.Evaluate(Undefined, nil, nil)
	if s, ok := got.(string); err != nil || !ok || len(s) != DefaultMaxStringBytes {
		t.Errorf("a string of DefaultMaxStringBytes: %.20v…, %v", got, err)
	}
	for _, tt := range []struct{ name, expr, want string }{
		{"one byte too many", `$pad("x", 67108865)`, text},
		{"shared arrays returned", `$reduce([1..60], function($a, $b){[[$a], [$a]]}, [1])`, arrays},
	} {
		e := budgetError(t, tt.expr, nil)
		if e.Code != "" || e.Message != tt.want {
			t.Errorf("%s: got %q %q, want code-less %q", tt.name, e.Code, e.Message, tt.want)
		}
	}
}

// A range longer than MaxItems fails before it is built: ten million
// members would take 240 MB only to be refused.
func TestBudgetRefusesARangeBeforeBuildingIt(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	e := budgetError(t, `[1..10000000]`, &Options{MaxItems: 1000})
	runtime.ReadMemStats(&after)
	if e.Code != "" || e.Message != "Invalid array length" {
		t.Errorf("got %q %q, want code-less Invalid array length", e.Code, e.Message)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("allocated %d bytes to refuse the range, want under 1 MiB", got)
	}
	// Past jsonata-js's own bound, its error comes first.
	if e := budgetError(t, `[1..10000001]`, &Options{MaxItems: 1000}); e.Code != "D2014" {
		t.Errorf("a range past 1e7 failed with %q %q, want D2014", e.Code, e.Message)
	}
}
