package jsonata

import (
	"math"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// fnClone is $clone(value), which the transform operator (|…|…|) also
// calls: a deep copy made, as in jsonata-js, by writing the value as
// $string does and reading it back. So numbers come back with 15
// significant digits and functions as "".
func fnClone(c *Call, args []any) (any, error) {
	if args[0] == Undefined {
		return Undefined, nil
	}
	c.startWalk()
	v, err := fnCloneValue(c, args[0], 0)
	if err != nil {
		return nil, fnAt(c, err)
	}
	return v, nil
}

func fnCloneValue(c *Call, v any, depth int) (any, error) {
	checkValueDepth(depth)
	switch v := v.(type) {
	case float64:
		if math.IsInf(v, 0) {
			return nil, &Error{Code: "D1001", Message: "Number out of range: null", Value: v}
		}
		if r := js.ToPrecision15(v); !math.IsNaN(r) && !math.IsInf(r, 0) {
			return r, nil
		}
		return nil, nil
	case Function:
		return "", nil
	case []any:
		if err := c.growItems(len(v)); err != nil {
			return nil, err
		}
		out := make([]any, len(v))
		for i, x := range v {
			var err error
			if out[i], err = fnCloneValue(c, x, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *jsonvalue.Object:
		if err := c.growItems(v.Len()); err != nil {
			return nil, err
		}
		out := jsonvalue.NewObject(v.Len())
		for _, k := range v.Keys() {
			x, _ := v.Get(k)
			cx, err := fnCloneValue(c, x, depth+1)
			if err != nil {
				return nil, err
			}
			out.Set(k, cx)
		}
		return out, nil
	}
	return v, nil
}
