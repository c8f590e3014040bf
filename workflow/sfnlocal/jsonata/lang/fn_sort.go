package lang

// fnSort is $sort(array, comparator). Without a comparator the array must
// hold only numbers or only strings (D3070), sorted ascending (strings by
// UTF-16 code units, as JavaScript compares them). A comparator
// function($l, $r) returns true when $l belongs after $r; its result is
// read with JavaScript truthiness. The sort is the stable merge sort of
// jsonata-js, so even an inconsistent comparator orders as it does there.
func fnSort(c *Call, args []any) (any, error) {
	a, ok := args[0].([]any)
	if !ok {
		return Undefined, nil
	}
	if len(a) <= 1 {
		return a, nil
	}
	after := func(l, r any) (bool, error) {
		res, err := c.Apply(args[1], l, r)
		return fnTruthy(res), err
	}
	if args[1] == Undefined {
		var err error
		if after, err = fnDefaultOrder(c, a); err != nil {
			return nil, err
		}
	}
	return fnMergeSort(a, after)
}

// fnDefaultOrder is the comparator $sort uses without one: > on numbers
// or on strings.
func fnDefaultOrder(c *Call, a []any) (func(l, r any) (bool, error), error) {
	allNumbers, allStrings := true, true
	for _, v := range a {
		_, isNum := v.(float64)
		_, isStr := v.(string)
		allNumbers = allNumbers && isNum
		allStrings = allStrings && isStr
	}
	switch {
	case allNumbers:
		return func(l, r any) (bool, error) { return l.(float64) > r.(float64), nil }, nil
	case allStrings:
		return func(l, r any) (bool, error) { return fnLessUTF16(r.(string), l.(string)), nil }, nil
	}
	return nil, fnError(c, "D3070", "The single argument form of the sort function can only be applied to an array of strings or an array of numbers.  Use the second argument to specify a comparison function", nil)
}

// fnMergeSort sorts a top-down: halves split at len/2, and in a merge the
// right head goes first only when after(left head, right head).
func fnMergeSort(a []any, after func(l, r any) (bool, error)) ([]any, error) {
	if len(a) <= 1 {
		return a, nil
	}
	mid := len(a) / 2
	left, err := fnMergeSort(a[:mid], after)
	if err != nil {
		return nil, err
	}
	right, err := fnMergeSort(a[mid:], after)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(a))
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
