package jsonvalue

import (
	"cmp"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
)

// Equal is JSON value equality as Step Functions compares values: numbers
// by value (1 equals 1.0), arrays element by element, objects by their
// members regardless of order.
func Equal(a, b any) bool {
	if c, ok := CompareNumbers(a, b); ok {
		return c == 0
	}
	switch x := a.(type) {
	case *Object:
		y, ok := b.(*Object)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.Keys() {
			xv, _ := x.Get(k)
			yv, ok := y.Get(k)
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case string, bool, nil:
		return a == b
	}
	return false
}

// CompareNumbers orders two numbers by their exact values; ok is false
// unless both are numbers. A number whose exponent is too large to expand
// exactly compares as a float64.
func CompareNumbers(a, b any) (c int, ok bool) {
	if x, ok := a.(json.Number); ok && x == b {
		return 0, true
	}
	fa, ok1 := Float(a)
	fb, ok2 := Float(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	x, ok1 := Rat(a)
	y, ok2 := Rat(b)
	if ok1 && ok2 {
		return x.Cmp(y), true
	}
	return cmp.Compare(fa, fb), true
}

// maxExactExponent bounds the exponents expanded exactly: 1e999999999
// would take gigabytes as a big.Rat.
const maxExactExponent = 400

// Rat is the exact value of a number; ok is false for a non-number, a
// non-finite float64 and a json.Number whose exponent is over 400.
func Rat(v any) (*big.Rat, bool) {
	switch n := v.(type) {
	case json.Number:
		s := string(n)
		if i := strings.IndexAny(s, "eE"); i >= 0 {
			exp, err := strconv.Atoi(strings.TrimLeft(s[i+1:], "+-"))
			if err != nil || exp > maxExactExponent {
				return nil, false
			}
		}
		return new(big.Rat).SetString(s)
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(n) == nil {
			return nil, false
		}
		return r, true
	case int:
		return new(big.Rat).SetInt64(int64(n)), true
	case int64:
		return new(big.Rat).SetInt64(n), true
	}
	return nil, false
}
