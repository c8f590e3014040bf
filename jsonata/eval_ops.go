package jsonata

import (
	"math"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
)

// evalBinary evaluates the operators that take two values.
func (s *state) evalBinary(n *node, input any, env *frame) (any, error) {
	lhs, err := s.eval(n.lhs, input, env)
	if err != nil {
		return nil, err
	}
	if n.op == "and" || n.op == "or" {
		l, err := truthy(lhs)
		if err != nil {
			return nil, opError(err, n)
		}
		if l == (n.op == "or") {
			return l, nil
		}
		rhs, err := s.eval(n.rhs, input, env)
		if err != nil {
			return nil, opError(err, n) // jsonata-js claims it for the operator
		}
		r, err := truthy(rhs)
		if err != nil {
			return nil, opError(err, n)
		}
		return r, nil
	}
	rhs, err := s.eval(n.rhs, input, env)
	if err != nil {
		return nil, err
	}
	var r any
	switch n.op {
	case "+", "-", "*", "/", "%":
		r, err = arithmetic(lhs, rhs, n.op)
	case "=":
		r = !IsUndefined(lhs) && !IsUndefined(rhs) && deepEqual(lhs, rhs)
	case "!=":
		r = !IsUndefined(lhs) && !IsUndefined(rhs) && !deepEqual(lhs, rhs)
	case "<", "<=", ">", ">=":
		r, err = compareValues(lhs, rhs, n.op)
	case "&":
		if r, err = s.concatStrings(lhs, rhs); err == nil {
			err = s.charge(r)
		}
	case "..":
		if r, err = rangeOf(lhs, rhs, s.budget.max, s.tick); err == nil {
			err = s.charge(r)
		}
	case "in":
		r = includes(lhs, rhs)
	}
	if err != nil {
		return nil, opError(err, n)
	}
	return r, nil
}

// opError gives an operator's error the operator's position and token.
func opError(err error, n *node) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	e.Position = n.pos
	retoken(e, n.op)
	return e
}

// isNumber reports whether v is a number other than NaN; an infinite
// number is error D1001.
func isNumber(v any) (float64, bool, error) {
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) {
		return 0, false, nil
	}
	if math.IsInf(f, 0) {
		return 0, false, errAt("D1001", 0, inserts{"value": f})
	}
	return f, true, nil
}

func arithmetic(lhs, rhs any, op string) (any, error) {
	l, lok, err := isNumber(lhs)
	if err != nil {
		return nil, err
	}
	if !IsUndefined(lhs) && !lok {
		return nil, errAt("T2001", 0, inserts{"token": op, "value": lhs})
	}
	r, rok, err := isNumber(rhs)
	if err != nil {
		return nil, err
	}
	if !IsUndefined(rhs) && !rok {
		return nil, errAt("T2002", 0, inserts{"token": op, "value": rhs})
	}
	if !lok || !rok {
		return Undefined, nil
	}
	switch op {
	case "+":
		return l + r, nil
	case "-":
		return l - r, nil
	case "*":
		return l * r, nil
	case "/":
		return l / r, nil
	}
	return math.Mod(l, r), nil
}

func compareValues(lhs, rhs any, op string) (any, error) {
	comparable := func(v any) bool {
		switch v.(type) {
		case undefined, string, float64:
			return true
		}
		return false
	}
	if !comparable(lhs) || !comparable(rhs) {
		bad := rhs
		switch lhs.(type) {
		case string, float64:
		default:
			bad = lhs
		}
		return nil, errAt("T2010", 0, inserts{"token": op, "value": bad})
	}
	if IsUndefined(lhs) || IsUndefined(rhs) {
		return Undefined, nil
	}
	var c int
	switch l := lhs.(type) {
	case string:
		r, ok := rhs.(string)
		if !ok {
			return nil, mismatch(lhs, rhs, op)
		}
		c = js.Compare(l, r)
	case float64:
		r, ok := rhs.(float64)
		if !ok {
			return nil, mismatch(lhs, rhs, op)
		}
		if math.IsNaN(l) || math.IsNaN(r) {
			return false, nil
		}
		switch {
		case l < r:
			c = -1
		case l > r:
			c = 1
		}
	}
	switch op {
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	}
	return c >= 0, nil
}

func mismatch(lhs, rhs any, op string) error {
	return errAt("T2009", 0, inserts{"token": op, "value": lhs, "value2": rhs})
}

// concatStrings is the & operator: both sides as $string renders them,
// undefined as "".
func (s *state) concatStrings(lhs, rhs any) (any, error) {
	l, r := "", ""
	var err error
	if !IsUndefined(lhs) {
		if l, err = fnStringWithin(lhs, false, max(s.budget.bytes, 1)); err != nil {
			return nil, err
		}
	}
	if !IsUndefined(rhs) {
		if r, err = fnStringWithin(rhs, false, max(s.budget.bytes, 1)); err != nil {
			return nil, err
		}
	}
	return l + r, nil
}

// maxRange is the most members a range may have.
const maxRange = 1e7

// rangeOf is lhs..rhs. A range of more than maxItems members fails
// before it is built.
func rangeOf(lhs, rhs any, maxItems int, tick func(int) error) (any, error) {
	l, lok := lhs.(float64)
	if !IsUndefined(lhs) && (!lok || !isInteger(l)) {
		return nil, errAt("T2003", 0, inserts{"value": lhs})
	}
	r, rok := rhs.(float64)
	if !IsUndefined(rhs) && (!rok || !isInteger(r)) {
		return nil, errAt("T2004", 0, inserts{"value": rhs})
	}
	if !lok || !rok || l > r {
		return Undefined, nil
	}
	size := r - l + 1
	if size > maxRange {
		return nil, errAt("D2014", 0, inserts{"value": size})
	}
	if size > float64(maxItems) {
		return nil, errArrayLength()
	}
	out := make([]any, int(size))
	for i := range out {
		if i%workCheckInterval == 0 {
			if err := tick(workCheckInterval); err != nil {
				return nil, err
			}
		}
		out[i] = l + float64(i)
	}
	return &seq{items: out}, nil
}

func isInteger(f float64) bool {
	return !math.IsInf(f, 0) && !math.IsNaN(f) && f == math.Trunc(f)
}

// includes is the in operator: whether lhs is one of rhs's members (or
// rhs itself), compared as JavaScript's === does.
func includes(lhs, rhs any) bool {
	if IsUndefined(lhs) || IsUndefined(rhs) {
		return false
	}
	members, ok := rhs.([]any)
	if !ok {
		members = []any{rhs}
	}
	for _, m := range members {
		if strictEqual(m, lhs) {
			return true
		}
	}
	return false
}

// evalNegation is unary minus.
func (s *state) evalNegation(n *node, input any, env *frame) (any, error) {
	v, err := s.eval(n.lhs, input, env)
	if err != nil {
		return nil, err
	}
	if IsUndefined(v) {
		return Undefined, nil
	}
	f, ok, err := isNumber(v)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errAt("D1002", n.pos, inserts{"token": "-", "value": v})
	}
	return -f, nil
}

// evalArray is the array constructor: members are appended (arrays
// flattened one level) except nested constructors, which nest.
func (s *state) evalArray(n *node, input any, env *frame) (any, error) {
	out := make([]any, 0, len(n.items))
	for _, it := range n.items {
		v, err := s.eval(it, input, env)
		if err != nil {
			return nil, err
		}
		if IsUndefined(v) {
			continue
		}
		if it.typ == nArray {
			out = append(out, v)
		} else if xs, ok := items(v); ok {
			out = append(out, xs...)
		} else {
			out = append(out, v)
		}
	}
	if err := s.chargeItems(len(out)); err != nil {
		return nil, err
	}
	if n.consArray {
		return s.mark(out, fCons), nil
	}
	return out, nil
}
