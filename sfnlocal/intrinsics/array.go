package intrinsics

import (
	"fmt"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

const maxRangeItems = 1000

func array(args []any, _ []node) (any, error) {
	return append([]any{}, args...), nil
}

func arrayArg(fn string, v any) ([]any, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, invalid(fn, "expected an array, got "+jsonvalue.TypeName(v))
	}
	return a, nil
}

func arrayPartition(args []any, _ []node) (any, error) {
	const fn = "States.ArrayPartition"
	a, err := arrayArg(fn, args[0])
	if err != nil {
		return nil, err
	}
	size, err := intArg(fn, args[1])
	if err != nil {
		return nil, err
	}
	if size <= 0 {
		return nil, invalid(fn, fmt.Sprintf("chunk size must be greater than 0, got %d", size))
	}
	out := []any{}
	for i := 0; i < len(a); i += int(size) {
		out = append(out, append([]any{}, a[i:min(i+int(size), len(a))]...))
	}
	return out, nil
}

func arrayContains(args []any, _ []node) (any, error) {
	a, err := arrayArg("States.ArrayContains", args[0])
	if err != nil {
		return nil, err
	}
	for _, e := range a {
		if containsEqual(e, args[1]) {
			return true, nil
		}
	}
	return false, nil
}

// containsEqual is AWS's membership test: JSON equality, except that a
// string matches a number or boolean with the same text ("true" == true).
func containsEqual(a, b any) bool {
	if s, ok := a.(string); ok {
		if k := jsonvalue.TypeName(b); k == "number" || k == "boolean" {
			return s == jsonvalue.Encode(b)
		}
	}
	if s, ok := b.(string); ok {
		if k := jsonvalue.TypeName(a); k == "number" || k == "boolean" {
			return s == jsonvalue.Encode(a)
		}
	}
	return key(a) == key(b)
}

func arrayRange(args []any, _ []node) (any, error) {
	const fn = "States.ArrayRange"
	var n [3]int64
	for i := range n {
		v, err := intArg(fn, args[i])
		if err != nil {
			return nil, err
		}
		n[i] = v
	}
	start, end, step := n[0], n[1], n[2]
	if step == 0 {
		return nil, invalid(fn, "step must not be 0")
	}
	count := int64(0)
	if step > 0 && start <= end {
		count = (end-start)/step + 1
	} else if step < 0 && start >= end {
		count = (start-end)/(-step) + 1
	}
	if count > maxRangeItems {
		return nil, invalid(fn, fmt.Sprintf("the range has %d items, more than %d", count, maxRangeItems))
	}
	out := make([]any, count)
	for i := range out {
		out[i] = jsonvalue.Int(start + int64(i)*step)
	}
	return out, nil
}

func arrayGetItem(args []any, _ []node) (any, error) {
	const fn = "States.ArrayGetItem"
	a, err := arrayArg(fn, args[0])
	if err != nil {
		return nil, err
	}
	i, err := intArg(fn, args[1])
	if err != nil {
		return nil, err
	}
	if len(a) == 0 {
		return nil, nil // what AWS returns for any index into []
	}
	if i < 0 || i >= int64(len(a)) {
		return nil, invalid(fn, fmt.Sprintf("index %d out of bounds for length %d", i, len(a)))
	}
	return a[i], nil
}

func arrayLength(args []any, _ []node) (any, error) {
	a, err := arrayArg("States.ArrayLength", args[0])
	if err != nil {
		return nil, err
	}
	return jsonvalue.Int(int64(len(a))), nil
}

func arrayUnique(args []any, _ []node) (any, error) {
	a, err := arrayArg("States.ArrayUnique", args[0])
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(a))
	out := []any{}
	for _, e := range a {
		if k := key(e); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out, nil
}
