package jsonata

import "sync"

// Library is a function library: the standard library with functions
// added, replaced or removed. It is immutable and safe for concurrent
// use, so build it once and name it in the Options of every evaluation.
type Library struct {
	funcs map[string]any
}

// NewLibrary returns the standard library without the functions named in
// without, plus functions; one named like a standard function replaces
// it.
func NewLibrary(functions []*Builtin, without ...string) *Library {
	std := standardLibrary().funcs
	funcs := make(map[string]any, len(std)+len(functions))
	for name, f := range std {
		funcs[name] = f
	}
	for _, name := range without {
		delete(funcs, name)
	}
	for _, b := range functions {
		funcs[b.Name] = b
	}
	return &Library{funcs: funcs}
}

// standardLibrary is the standard library, built once.
var standardLibrary = sync.OnceValue(func() *Library {
	funcs := map[string]any{}
	for _, b := range coreFunctions() {
		funcs[b.Name] = b
	}
	for _, b := range formatFunctions() {
		funcs[b.Name] = b
	}
	return &Library{funcs: funcs}
})

// isStandardClone reports whether fn is the standard $clone, whose result
// is always a fresh deep copy.
func isStandardClone(fn any) bool {
	return fn == standardLibrary().funcs["clone"]
}
