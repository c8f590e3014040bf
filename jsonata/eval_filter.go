package jsonata

import "math"

// filter applies a predicate to each member of input: a number (or array
// of numbers) selects by index, counting from the end when negative and
// rounding down; anything else keeps the members for which it is true.
func (s *state) filter(pred *node, input any, env *frame) (any, error) {
	if ts, ok := input.(tupleStream); ok {
		return s.filterTuples(pred, ts, env)
	}
	members, ok := items(input)
	if !ok {
		members = []any{input}
	}
	out := &seq{}
	if pred.typ == nNumber {
		i := int(math.Floor(pred.value.(float64)))
		if i < 0 {
			i += len(members)
		}
		if i >= 0 && i < len(members) {
			item := members[i]
			if a, ok := item.([]any); ok {
				return a, nil
			}
			if !IsUndefined(item) {
				out.push(item)
			}
		}
		return out, nil
	}
	for i, item := range members {
		res, err := s.eval(pred, item, env)
		if err != nil {
			return nil, err
		}
		hits, err := selects(res, i, len(members))
		if err != nil {
			return nil, err
		}
		for range hits {
			out.push(item)
		}
	}
	return out, nil
}

func (s *state) filterTuples(pred *node, ts tupleStream, env *frame) (any, error) {
	out := tupleStream{}
	if pred.typ == nNumber {
		i := int(math.Floor(pred.value.(float64)))
		if i < 0 {
			i += len(ts)
		}
		if i >= 0 && i < len(ts) {
			out = append(out, ts[i])
		}
		return out, nil
	}
	for i, t := range ts {
		res, err := s.eval(pred, t["@"], tupleFrame(env, t))
		if err != nil {
			return nil, err
		}
		hits, err := selects(res, i, len(ts))
		if err != nil {
			return nil, err
		}
		for range hits {
			out = append(out, t)
		}
	}
	return out, nil
}

// selects counts how many times the member at index (of n) is selected by
// a predicate that evaluated to res: once per matching index of an array
// of numbers, else once if res is truthy.
func selects(res any, index, n int) (int, error) {
	if f, ok := res.(float64); ok {
		if math.IsInf(f, 0) {
			return 0, errAt("D1001", 0, inserts{"value": f})
		}
		if !math.IsNaN(f) {
			res = []any{f}
		}
	}
	if nums, ok := res.([]any); ok {
		allNumbers := true
		for _, v := range nums {
			f, isNum := v.(float64)
			if isNum && math.IsInf(f, 0) {
				return 0, errAt("D1001", 0, inserts{"value": f})
			}
			if !isNum || math.IsNaN(f) {
				allNumbers = false
				break
			}
		}
		if allNumbers {
			hits := 0
			for _, v := range nums {
				i := int(math.Floor(v.(float64)))
				if i < 0 {
					i += n
				}
				if i == index {
					hits++
				}
			}
			return hits, nil
		}
	}
	if ok, err := truthy(res); !ok || err != nil {
		return 0, err
	}
	return 1, nil
}
