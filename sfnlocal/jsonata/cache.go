package jsonata

import (
	"sync"

	lang "github.com/sfnapprovals/approvals/jsonata"
)

// maxCached bounds the compile cache. Expressions come from state machine
// definitions, so the bound is only a guard against unbounded growth; the
// cache starts over when it is reached.
const maxCached = 10_000

// cache holds parsed expressions, and parse failures, by their text. A
// parsed expression is immutable and safe for concurrent evaluation, so
// every evaluation uses the cached one.
var cache = struct {
	sync.RWMutex
	entries map[string]compiled
}{entries: map[string]compiled{}}

type compiled struct {
	expr *lang.Expr
	err  error
}

// compile parses expr, or returns the cached result of parsing it.
func compile(expr string) (*lang.Expr, error) {
	cache.RLock()
	c, ok := cache.entries[expr]
	cache.RUnlock()
	if ok {
		return c.expr, c.err
	}
	e, err := lang.Parse(expr)
	c = compiled{e, err}
	cache.Lock()
	if len(cache.entries) >= maxCached {
		clear(cache.entries)
	}
	cache.entries[expr] = c
	cache.Unlock()
	return e, err
}
