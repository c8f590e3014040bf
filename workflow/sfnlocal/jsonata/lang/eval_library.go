package lang

import "sync"

// stdLibrary is the standard library by name, built once.
var stdLibrary = sync.OnceValue(func() map[string]any {
	lib := map[string]any{}
	for _, b := range coreFunctions() {
		lib[b.Name] = b
	}
	for _, b := range formatFunctions() {
		lib[b.Name] = b
	}
	return lib
})

// library is the function library of an evaluation with opts.
func library(opts *Options) map[string]any {
	lib := stdLibrary()
	if opts == nil || (len(opts.Functions) == 0 && len(opts.Without) == 0) {
		return lib
	}
	out := make(map[string]any, len(lib)+len(opts.Functions))
	for k, v := range lib {
		out[k] = v
	}
	for _, name := range opts.Without {
		delete(out, name)
	}
	for _, b := range opts.Functions {
		out[b.Name] = b
	}
	return out
}
