package lang

import "math"

// fnNumbers is the array argument of an aggregate: nil when Undefined.
func fnNumbers(v any) ([]float64, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	nums := make([]float64, len(a))
	for i, x := range a {
		nums[i], _ = x.(float64)
	}
	return nums, true
}

// fnSum is $sum(numbers); 0 for an empty array.
func fnSum(_ *Call, args []any) (any, error) {
	nums, ok := fnNumbers(args[0])
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
func fnMax(_ *Call, args []any) (any, error) {
	return fnExtreme(args[0], math.Max)
}

// fnMin is $min(numbers); Undefined for an empty array.
func fnMin(_ *Call, args []any) (any, error) {
	return fnExtreme(args[0], math.Min)
}

func fnExtreme(v any, pick func(a, b float64) float64) (any, error) {
	nums, _ := fnNumbers(v)
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
func fnAverage(_ *Call, args []any) (any, error) {
	nums, _ := fnNumbers(args[0])
	if len(nums) == 0 {
		return Undefined, nil
	}
	total := 0.0
	for _, n := range nums {
		total += n
	}
	return total / float64(len(nums)), nil
}
