package jsonata

import (
	"reflect"
	"sync"

	lib "github.com/blues/jsonata-go"
)

// maxCached bounds the compile cache. Expressions come from state machine
// definitions, so the bound is only a guard against unbounded growth; the
// cache starts over when it is reached.
const maxCached = 10_000

// cache holds compiled expressions by their text. A compiled expression
// is never evaluated itself: each evaluation binds its variables on a
// copy (see instance).
var cache = struct {
	sync.RWMutex
	entries map[string]compiled
}{entries: map[string]compiled{}}

type compiled struct {
	expr *lib.Expr
	err  error
}

// compile parses expr, or returns the cached result of parsing it.
func compile(expr string) (*lib.Expr, error) {
	cache.RLock()
	c, ok := cache.entries[expr]
	cache.RUnlock()
	if ok {
		return c.expr, c.err
	}
	e, err := lib.Compile(expr)
	c = compiled{e, err}
	cache.Lock()
	if len(cache.entries) >= maxCached {
		clear(cache.entries)
	}
	cache.entries[expr] = c
	cache.Unlock()
	return e, err
}

// instance returns an Expr for one evaluation: a copy of the cached one
// with the Step Functions functions and vars bound. Bindings live in the
// Expr's registry, so binding them on the cached Expr would leak one
// evaluation's variables into the next. A copy gets a registry of its own
// only while the cached one is nil, which it is unless some other package
// registered globals with the library; then the expression is parsed
// afresh.
func instance(source string, cached *lib.Expr, vars map[string]any) (*lib.Expr, error) {
	e := cached
	if registry := reflect.ValueOf(cached).Elem().FieldByName("registry"); registry.IsValid() && registry.IsNil() {
		c := *cached
		e = &c
	} else {
		var err error
		if e, err = lib.Compile(source); err != nil {
			return nil, err
		}
	}
	if err := e.RegisterExts(stepFunctions); err != nil {
		return nil, err
	}
	if err := e.RegisterVars(vars); err != nil {
		return nil, err
	}
	return e, nil
}
