package jsonata

import (
	"math"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// isFunction reports whether v can be called.
func isFunction(v any) bool {
	_, ok := v.(Function)
	return ok
}

// truthy is JSONata's effective boolean value, as conditions, predicates,
// and/or, $boolean, $not, $filter, $single and $sift see it: undefined,
// false, 0, "", null, empty arrays and objects are false; an array is
// true when any member is; an infinite number is error D1001. Functions
// are true, except regexes (and the next() of a regex match), which
// jsonata-js makes plain JavaScript functions and so false.
func truthy(v any) (bool, error) { return truthyAt(v, 0) }

func truthyAt(v any, depth int) (bool, error) {
	checkValueDepth(depth)
	switch x := v.(type) {
	case undefined, nil:
		return false, nil
	case bool:
		return x, nil
	case string:
		return x != "", nil
	case float64:
		if math.IsInf(x, 0) {
			return false, errAt("D1001", 0, inserts{"value": x})
		}
		return x != 0 && !math.IsNaN(x), nil
	case []any:
		if len(x) == 1 {
			return truthyAt(x[0], depth+1)
		}
		any := false
		for _, m := range x {
			b, err := truthyAt(m, depth+1)
			if err != nil {
				return false, err
			}
			any = any || b
		}
		return any, nil
	case *jsonvalue.Object:
		return x.Len() > 0, nil
	case *Regex, *matchNext:
		return false, nil
	}
	return isFunction(v), nil
}

// deepEqual is JSONata's = and $distinct's comparison: values of the same
// type and content, objects regardless of key order, functions only
// equal to themselves.
func deepEqual(a, b any) bool { return deepEqualAt(a, b, 0) }

func deepEqualAt(a, b any, depth int) bool {
	checkValueDepth(depth)
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !deepEqualAt(x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	case *jsonvalue.Object:
		y, ok := b.(*jsonvalue.Object)
		if !ok || x.Len() != y.Len() {
			return false
		}
		equal := true
		x.Range(func(k string, v any) bool {
			w, ok := y.Get(k)
			equal = ok && deepEqualAt(v, w, depth+1)
			return equal
		})
		return equal
	}
	return strictEqual(a, b)
}

// strictEqual is JavaScript's === : equal primitives, or the very same
// array, object or function.
func strictEqual(a, b any) (same bool) {
	if x, ok := a.([]any); ok {
		y, ok := b.([]any)
		return ok && len(x) == len(y) && cap(x) > 0 && cap(y) > 0 && arrayKey(x) == arrayKey(y)
	}
	defer func() {
		if recover() != nil {
			same = false // a caller's Function of a type Go cannot compare
		}
	}()
	return a == b
}
