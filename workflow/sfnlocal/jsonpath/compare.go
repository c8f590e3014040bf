package jsonpath

import (
	"encoding/json"
	"math/big"
	"strings"
)

func number(v any) (*big.Rat, bool) {
	var text string
	switch n := v.(type) {
	case json.Number:
		text = string(n)
	case float64:
		return new(big.Rat).SetFloat64(n), true
	case int:
		return new(big.Rat).SetInt64(int64(n)), true
	case int64:
		return new(big.Rat).SetInt64(n), true
	default:
		return nil, false
	}
	r, ok := new(big.Rat).SetString(text)
	return r, ok
}

// equal is JSON value equality; numbers compare by value, so 1 == 1.0.
func equal(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x.Cmp(y) == 0
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	case string, bool, nil:
		return a == b
	}
	return false
}

// compare orders two numbers or two strings.
func compare(a, b any) (int, bool) {
	if x, ok := number(a); ok {
		y, ok := number(b)
		if !ok {
			return 0, false
		}
		return x.Cmp(y), true
	}
	x, ok := a.(string)
	y, ok2 := b.(string)
	if !ok || !ok2 {
		return 0, false
	}
	return strings.Compare(x, y), true
}
