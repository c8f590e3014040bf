package jsonata

// maxValueDepth bounds how deeply the recursive walks over values (JSON
// text, equality, copies, lookups, the output) follow nested arrays and
// objects. Values from JSON are far shallower, but an expression can
// build deeper ones (tail recursion wrapping a value in an array a
// million times), and a walk must not overflow Go's stack.
const maxValueDepth = 100000

// valueTooDeep is what a walk panics with past maxValueDepth; Evaluate
// recovers it as the RangeError V8 raises when its stack overflows.
type valueTooDeep struct{}

// checkValueDepth is called by a recursive walk at every level.
func checkValueDepth(depth int) {
	if depth > maxValueDepth {
		panic(valueTooDeep{})
	}
}

// recoverTooDeep turns a walk's valueTooDeep or overBudget panic into *err; other
// panics go on.
func recoverTooDeep(err *error) {
	r := recover()
	if r == nil {
		return
	}
	if e, ok := r.(overBudget); ok {
		*err = e.err
		return
	}
	if _, ok := r.(valueTooDeep); !ok {
		panic(r)
	}
	*err = &Error{Message: "Maximum call stack size exceeded"}
}
