package jsonata

import (
	"github.com/sfnapprovals/approvals/jsonata/internal/js"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// maxTransformIndex bounds the index a transform may set in an array:
// jsonata-js makes a sparse array, which the evaluator would have to
// fill with holes.
const maxTransformIndex = 1 << 24

// updateArray gives the array a matched by a transform the members of
// update whose names are array indexes, as JavaScript's a[k] = v does;
// other names are properties JSON leaves out. Growing the array
// replaces it wherever it appears in result, which is returned.
func (s *state) updateArray(result any, a []any, update *jsonvalue.Object) (any, error) {
	grown := a
	var err error
	update.Range(func(k string, v any) bool {
		i, ok := js.ArrayIndex(k)
		if !ok {
			return true
		}
		if i >= maxTransformIndex {
			err = &Error{Message: "Invalid array length", Value: float64(i)}
			return false
		}
		for uint64(len(grown)) <= i {
			grown = append(grown, Undefined)
		}
		grown[i] = v
		return true
	})
	if err != nil || len(grown) == len(a) {
		return result, err
	}
	if f := s.flagsOf(a); f != 0 {
		grown = s.mark(grown, f)
	}
	if r, ok := result.([]any); ok && sameArray(r, a) {
		return grown, nil
	}
	replaceArray(result, a, grown, map[any]bool{}, 0)
	return result, nil
}

// sameArray reports whether a and b are the same JavaScript array: the
// same backing array.
func sameArray(a, b []any) bool {
	return len(a) > 0 && len(b) > 0 && arrayKey(a) == arrayKey(b)
}

// deleteFromArray makes holes where names are array indexes of a, as
// JavaScript's delete a[k] does.
func deleteFromArray(a []any, names []any) {
	for _, d := range names {
		if i, ok := js.ArrayIndex(d.(string)); ok && i < uint64(len(a)) {
			a[i] = Undefined
		}
	}
}

// replaceArray puts repl wherever v holds the array old (the same backing
// array); seen stops it at containers already visited.
func replaceArray(v any, old, repl []any, seen map[any]bool, depth int) {
	checkValueDepth(depth)
	switch x := v.(type) {
	case []any:
		k := arrayKey(x)
		if k == nil || seen[k] {
			return
		}
		seen[k] = true
		for i, m := range x {
			if a, ok := m.([]any); ok && sameArray(a, old) {
				x[i] = repl
			} else {
				replaceArray(m, old, repl, seen, depth+1)
			}
		}
	case *jsonvalue.Object:
		if seen[x] {
			return
		}
		seen[x] = true
		for _, k := range x.Keys() {
			m, _ := x.Get(k)
			if a, ok := m.([]any); ok && sameArray(a, old) {
				x.Set(k, repl)
			} else {
				replaceArray(m, old, repl, seen, depth+1)
			}
		}
	}
}
