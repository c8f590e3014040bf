package jsonata

import "github.com/sfnapprovals/approvals/jsonata/internal/js"

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
	return mergeSort(a, func(l, r any) (bool, error) {
		if err := c.Tick(1); err != nil {
			return false, err
		}
		return after(l, r)
	})
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
		return func(l, r any) (bool, error) { return js.Compare(r.(string), l.(string)) < 0, nil }, nil
	}
	return nil, fnError(c, "D3070", "The single argument form of the sort function can only be applied to an array of strings or an array of numbers.  Use the second argument to specify a comparison function", nil)
}
