package jsonata

// JSONata distinguishes sequences (what paths produce) from arrays (what
// the data holds and [..] constructs): a sequence of one value is that
// value, an empty one is undefined, and steps flatten sequences but keep
// constructed arrays. jsonata-js marks arrays with flags; here a sequence
// being built is a *seq, and a finished sequence that survives as a value
// is a []any whose flags the evaluation records by the identity of its
// backing array, so built-ins see plain arrays.

// seq is a sequence under construction within the evaluator. Its items
// are finished values.
type seq struct {
	items []any
	keep  bool // keep a singleton as an array ([] in the expression)
}

func newSeq(items ...any) *seq { return &seq{items: items} }

func (q *seq) push(v any) { q.items = append(q.items, v) }

// seqFlags are the marks jsonata-js puts on arrays.
type seqFlags uint8

const (
	fSeq   seqFlags = 1 << iota // a sequence
	fKeep                       // keep as an array even when it holds one value
	fCons                       // built by an array constructor: a step does not flatten it
	fOuter                      // the wrapper around an array input
)

// arrayKey identifies an array by its backing store; arrays without
// capacity cannot carry flags.
func arrayKey(a []any) *any {
	if cap(a) == 0 {
		return nil
	}
	return &a[:1][0]
}

// flagsOf returns the flags of a finished array.
func (s *state) flagsOf(a []any) seqFlags {
	if len(s.flags) == 0 {
		return 0
	}
	k := arrayKey(a)
	if k == nil {
		return 0
	}
	return s.flags[k]
}

// mark records flags for a, clipping its capacity so that appending to it
// elsewhere copies rather than sharing its identity.
func (s *state) mark(a []any, f seqFlags) []any {
	if len(a) > 0 {
		a = a[:len(a):len(a)]
	} else if cap(a) == 0 {
		a = make([]any, 0, 1)
	}
	if s.flags == nil {
		s.flags = make(map[*any]seqFlags)
	}
	s.flags[arrayKey(a)] = f
	return a
}

// isSeq reports whether v is a sequence.
func (s *state) isSeq(v any) bool {
	switch x := v.(type) {
	case *seq:
		return true
	case []any:
		return s.flagsOf(x)&fSeq != 0
	}
	return false
}

// isCons reports whether v is an array built by a constructor.
func (s *state) isCons(v any) bool {
	a, ok := v.([]any)
	return ok && s.flagsOf(a)&fCons != 0
}

// unwrapOuter returns the input array inside the wrapper jsonata-js puts
// around an array input.
func (s *state) unwrapOuter(v any) any {
	if a, ok := v.([]any); ok && len(a) > 0 && s.flagsOf(a)&fOuter != 0 {
		return a[0]
	}
	return v
}

// finish is the end of every evaluation step: a sequence of one value
// becomes that value, an empty one undefined, and a longer one a marked
// array.
func (s *state) finish(n *node, v any) any {
	switch x := v.(type) {
	case *seq:
		keep := x.keep || n.keepArray
		if len(x.items) == 0 {
			return Undefined
		}
		if len(x.items) == 1 && !keep {
			return x.items[0]
		}
		f := fSeq
		if keep {
			f |= fKeep
		}
		return s.mark(x.items, f)
	case []any:
		f := s.flagsOf(x)
		if f&fSeq == 0 || f&fOuter != 0 {
			return v
		}
		if n.keepArray && f&fKeep == 0 {
			f |= fKeep
			s.flags[arrayKey(x)] = f
		}
		if len(x) == 0 {
			return Undefined
		}
		if len(x) == 1 && f&fKeep == 0 {
			return x[0]
		}
	}
	return v
}

// plainNode is a node without flags, for tidying values that no node of
// the expression produced.
var plainNode node

// tidy is finish for a value passed on inside a construct jsonata-js
// writes as a lambda (f ~> g): the sequence becomes its single value or
// undefined.
func (s *state) tidy(v any) any { return s.finish(&plainNode, v) }

// items returns the members of an array or sequence, and false for other
// values.
func items(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case *seq:
		return x.items, true
	}
	return nil, false
}

// appendValues is jsonata-js's append: undefined is ignored, and the
// result is a new plain array of a's members followed by b's (or b).
func appendValues(a, b any) any {
	if IsUndefined(a) {
		return b
	}
	if IsUndefined(b) {
		return a
	}
	var out []any
	if xs, ok := items(a); ok {
		out = append(make([]any, 0, len(xs)+1), xs...)
	} else {
		out = []any{a}
	}
	if ys, ok := items(b); ok {
		return append(out, ys...)
	}
	return append(out, b)
}
