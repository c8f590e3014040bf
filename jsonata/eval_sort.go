package jsonata

import "github.com/sfnapprovals/approvals/jsonata/internal/js"

// sortValues evaluates an order-by step over input (a sequence, an array
// or a tuple stream). It sorts with jsonata-js's merge sort and evaluates
// each term at most once per member, in the order jsonata-js first needs
// it, so that errors match. Undefined keys sort last.
func (s *state) sortValues(step *node, input any, env *frame) (any, error) {
	members, ts, isTuple := streamMembers(input)
	if len(members) <= 1 {
		return input, nil
	}
	keys := make([][]any, len(members)) // keys[i][term], nil until evaluated
	key := func(i, term int) (any, error) {
		if keys[i] == nil {
			keys[i] = make([]any, len(step.terms))
		}
		if keys[i][term] == nil {
			ctx, e := members[i], env
			if isTuple {
				t := ts[i]
				ctx, e = t["@"], tupleFrame(env, t)
			}
			v, err := s.eval(step.terms[term].expr, ctx, e)
			if err != nil {
				return nil, err
			}
			keys[i][term] = boxedKey{v}
		}
		return keys[i][term].(boxedKey).v, nil
	}
	after := func(a, b int) (bool, error) {
		comp := 0
		for t := 0; comp == 0 && t < len(step.terms); t++ {
			aa, err := key(a, t)
			if err != nil {
				return false, err
			}
			bb, err := key(b, t)
			if err != nil {
				return false, err
			}
			if IsUndefined(aa) {
				if !IsUndefined(bb) {
					comp = 1
				}
				continue
			}
			if IsUndefined(bb) {
				comp = -1
				continue
			}
			if !isSortable(aa) || !isSortable(bb) {
				bad := bb
				if !isSortable(aa) {
					bad = aa
				}
				return false, errAt("T2008", step.pos, inserts{"value": bad})
			}
			switch x := aa.(type) {
			case string:
				y, ok := bb.(string)
				if !ok {
					return false, errAt("T2007", step.pos, inserts{"value": aa, "value2": bb})
				}
				comp = js.Compare(x, y)
			case float64:
				y, ok := bb.(float64)
				if !ok {
					return false, errAt("T2007", step.pos, inserts{"value": aa, "value2": bb})
				}
				switch {
				case x == y:
				case x < y:
					comp = -1
				default: // greater, or NaN, which jsonata-js sorts as greater both ways
					comp = 1
				}
			}
			if step.terms[t].descending {
				comp = -comp
			}
		}
		return comp == 1, nil
	}
	idx := make([]int, len(members))
	for i := range idx {
		idx[i] = i
	}
	sorted, err := mergeSort(idx, after)
	if err != nil {
		return nil, err
	}
	if isTuple {
		out := make(tupleStream, len(sorted))
		for i, k := range sorted {
			out[i] = ts[k]
		}
		return out, nil
	}
	out := make([]any, len(sorted))
	for i, k := range sorted {
		out[i] = members[k]
	}
	return out, nil
}

// boxedKey holds an evaluated sort key, so that a nil (null) key is
// distinguishable from one not yet evaluated.
type boxedKey struct{ v any }

func isSortable(v any) bool {
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// mergeSort is jsonata-js's stable top-down merge sort, which $sort and
// order-by (^) both run: halves split at len/2, and in a merge the right
// head goes first only when after(left head, right head). So even an
// inconsistent comparator orders as in jsonata-js. xs is not changed.
func mergeSort[T any](xs []T, after func(a, b T) (bool, error)) ([]T, error) {
	if len(xs) <= 1 {
		return xs, nil
	}
	mid := len(xs) / 2
	left, err := mergeSort(xs[:mid], after)
	if err != nil {
		return nil, err
	}
	right, err := mergeSort(xs[mid:], after)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(xs))
	for len(left) > 0 && len(right) > 0 {
		swap, err := after(left[0], right[0])
		if err != nil {
			return nil, err
		}
		if swap {
			out, right = append(out, right[0]), right[1:]
		} else {
			out, left = append(out, left[0]), left[1:]
		}
	}
	out = append(out, left...)
	return append(out, right...), nil
}
