package validate

import (
	"encoding/json"
	"math/big"
)

// rat reads a JSON number exactly, whatever its size.
func rat(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetString(n.String())
}

// bounds is the range a numeric field accepts.
type bounds struct {
	min, max       int64
	hasMin, hasMax bool
	integer        bool
}

func intRange(min, max int64) bounds {
	return bounds{min: min, max: max, hasMin: true, hasMax: true, integer: true}
}

func atLeast(min int64, integer bool) bounds {
	return bounds{min: min, hasMin: true, integer: integer}
}

// number checks a numeric field. In a JSONata state the value may instead be
// a "{% %}" expression, which is checked for well-formedness. It returns the
// number when it is a literal within bounds.
func (c *checker) number(loc string, v any, b bounds, ql string) (*big.Rat, bool) {
	if ql == jsonata {
		if expr, ok := jsonataExpr(v); ok {
			c.jsonataExpression(loc, expr, false)
			return nil, false
		}
	}
	r, ok := rat(v)
	if !ok {
		want := "NUMBER"
		if b.integer {
			want = "INTEGER"
		}
		c.schema(loc, "Expected value of type [%s]", want)
		return nil, false
	}
	if b.integer && !r.IsInt() {
		c.schema(loc, "Expected value of type [INTEGER]")
		return nil, false
	}
	if b.hasMin && r.Cmp(new(big.Rat).SetInt64(b.min)) < 0 {
		c.schema(loc, "Minimum value is %d", b.min)
		return nil, false
	}
	if b.hasMax && r.Cmp(new(big.Rat).SetInt64(b.max)) > 0 {
		c.schema(loc, "Maximum value is %d", b.max)
		return nil, false
	}
	return r, true
}
