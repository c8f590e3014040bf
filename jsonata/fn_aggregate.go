package jsonata

import "math"

// fnNumbers is the array argument of an aggregate: nil when Undefined.
// Reading it is work (see Call.Tick): an error is the evaluation's
// context ending.
func fnNumbers(c *Call, v any) ([]float64, bool, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, false, nil
	}
	nums := make([]float64, len(a))
	for i, x := range a {
		if i%workCheckInterval == 0 {
			if err := c.Tick(workCheckInterval); err != nil {
				return nil, false, err
			}
		}
		nums[i], _ = x.(float64)
	}
	return nums, true, nil
}

// fnSum is $sum(numbers); 0 for an empty array.
func fnSum(c *Call, args []any) (any, error) {
	nums, ok, err := fnNumbers(c, args[0])
	if err != nil {
		return nil, err
	}
	if !ok {
		return Undefined, nil
	}
	total := 0.0
	for _, n := range nums {
		total += n
	}
	return total, nil
}

// fnCount is $count(array); 0 for Undefined.
func fnCount(_ *Call, args []any) (any, error) {
	a, _ := args[0].([]any)
	return float64(len(a)), nil
}

// fnMax is $max(numbers); Undefined for an empty array.
func fnMax(c *Call, args []any) (any, error) {
	return fnExtreme(c, args[0], math.Max)
}

// fnMin is $min(numbers); Undefined for an empty array.
func fnMin(c *Call, args []any) (any, error) {
	return fnExtreme(c, args[0], math.Min)
}

func fnExtreme(c *Call, v any, pick func(a, b float64) float64) (any, error) {
	nums, _, err := fnNumbers(c, v)
	if err != nil {
		return nil, err
	}
	if len(nums) == 0 {
		return Undefined, nil
	}
	r := nums[0]
	for _, n := range nums[1:] {
		r = pick(r, n)
	}
	return r, nil
}

// fnAverage is $average(numbers); Undefined for an empty array.
func fnAverage(c *Call, args []any) (any, error) {
	nums, _, err := fnNumbers(c, args[0])
	if err != nil {
		return nil, err
	}
	if len(nums) == 0 {
		return Undefined, nil
	}
	total := 0.0
	for _, n := range nums {
		total += n
	}
	return total / float64(len(nums)), nil
}
