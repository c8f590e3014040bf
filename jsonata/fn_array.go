package jsonata

import "math"

// fnAppend is $append(a, b): the two as one array, a value that is not
// an array counting as an array of one; an Undefined side gives the other.
func fnAppend(_ *Call, args []any) (any, error) {
	a, b := args[0], args[1]
	if a == Undefined {
		return b, nil
	}
	if b == Undefined {
		return a, nil
	}
	out := append(fnAsArray(a), fnAsArray(b)...)
	return out, nil
}

// fnAsArray is v as a new slice: a copy of an array, or v alone.
func fnAsArray(v any) []any {
	if a, ok := v.([]any); ok {
		return append([]any(nil), a...)
	}
	return []any{v}
}

// fnReverse is $reverse(array).
func fnReverse(_ *Call, args []any) (any, error) {
	return fnReordered(args[0], func(a, out []any) {
		for i, v := range a {
			out[len(a)-1-i] = v
		}
	}), nil
}

// fnShuffle is $shuffle(array), the inside-out Fisher–Yates shuffle that
// jsonata-js runs, drawing from the evaluation's random source.
func fnShuffle(c *Call, args []any) (any, error) {
	return fnReordered(args[0], func(a, out []any) {
		for i, v := range a {
			j := int(math.Floor(c.Random() * float64(i+1)))
			if i != j {
				out[i] = out[j]
			}
			out[j] = v
		}
	}), nil
}

// fnReordered is what $reverse and $shuffle return for v: Undefined for
// a value that is not an array, the array itself when it has at most one
// member, else a new array that fill puts a's members into.
func fnReordered(v any, fill func(a, out []any)) any {
	a, ok := v.([]any)
	if !ok {
		return Undefined
	}
	if len(a) <= 1 {
		return a
	}
	out := make([]any, len(a))
	fill(a, out)
	return out
}

// fnDistinct is $distinct(array): the first of each group of deep-equal
// values, in order. A value that is not an array is returned as it is.
func fnDistinct(c *Call, args []any) (any, error) {
	a, ok := args[0].([]any)
	if !ok || len(a) <= 1 {
		return args[0], nil
	}
	var out []any
	for _, v := range a {
		if err := c.Tick(len(out) + 1); err != nil {
			return nil, err
		}
		seen := false
		for _, kept := range out {
			if deepEqual(v, kept) {
				seen = true
				break
			}
		}
		if !seen {
			out = append(out, v)
		}
	}
	if fnIsSequence(c, args[0]) {
		return fnSequence(c, out), nil
	}
	return out, nil
}

// fnZip is $zip(array1, array2, …): arrays of the members at each index,
// as many as the shortest array has.
func fnZip(_ *Call, args []any) (any, error) {
	if len(args) == 0 {
		return []any{}, nil
	}
	arrays := make([][]any, len(args))
	shortest := math.MaxInt
	for i, v := range args {
		arrays[i], _ = v.([]any)
		shortest = min(shortest, len(arrays[i]))
	}
	out := []any{}
	for i := 0; i < shortest; i++ {
		tuple := make([]any, len(arrays))
		for k, a := range arrays {
			tuple[k] = a[i]
		}
		out = append(out, tuple)
	}
	return out, nil
}
