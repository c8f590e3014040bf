package sfnlocal

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
	"github.com/sfnapprovals/approvals/sfnlocal/jsonpath"
)

// choiceRule is one Choices entry or a nested And/Or/Not operand.
type choiceRule struct {
	next   string
	assign field
	output field

	condition field // JSONata

	variable string
	op       string
	operand  any
	and, or  []*choiceRule
	not      *choiceRule
}

var choiceOps = map[string]bool{}

func init() {
	for _, kind := range []string{"String", "Numeric", "Timestamp"} {
		for _, cmp := range []string{"Equals", "LessThan", "GreaterThan", "LessThanEquals", "GreaterThanEquals"} {
			choiceOps[kind+cmp] = true
			choiceOps[kind+cmp+"Path"] = true
		}
	}
	for _, op := range []string{"BooleanEquals", "BooleanEqualsPath", "StringMatches",
		"IsNull", "IsPresent", "IsNumeric", "IsString", "IsBoolean", "IsTimestamp"} {
		choiceOps[op] = true
	}
}

func parseChoiceRule(m *jsonvalue.Object, at string) (*choiceRule, error) {
	r := &choiceRule{assign: getField(m, "Assign"), output: getField(m, "Output"), condition: getField(m, "Condition")}
	r.next = str(m, "Next")
	r.variable = str(m, "Variable")
	for _, sub := range asList(member(m, "And")) {
		c, err := parseChoiceRule(sub, at+"/And")
		if err != nil {
			return nil, err
		}
		r.and = append(r.and, c)
	}
	for _, sub := range asList(member(m, "Or")) {
		c, err := parseChoiceRule(sub, at+"/Or")
		if err != nil {
			return nil, err
		}
		r.or = append(r.or, c)
	}
	if sub := obj(m, "Not"); sub != nil {
		c, err := parseChoiceRule(sub, at+"/Not")
		if err != nil {
			return nil, err
		}
		r.not = c
	}
	m.Range(func(k string, v any) bool {
		if choiceOps[k] {
			r.op, r.operand = k, v
		}
		return true
	})
	if !r.condition.set && r.and == nil && r.or == nil && r.not == nil && r.op == "" {
		return nil, fmt.Errorf("%s: a choice rule needs a comparison", at)
	}
	return r, nil
}

// matchJSONPath evaluates a JSONPath choice rule against the state input.
func (r *choiceRule) matchJSONPath(resolve func(string) (any, error)) (bool, error) {
	switch {
	case r.and != nil:
		for _, c := range r.and {
			ok, err := c.matchJSONPath(resolve)
			if err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case r.or != nil:
		for _, c := range r.or {
			ok, err := c.matchJSONPath(resolve)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	case r.not != nil:
		ok, err := r.not.matchJSONPath(resolve)
		return !ok, err
	}
	v, err := resolve(r.variable)
	if r.op == "IsPresent" {
		var nm *jsonpath.NoMatchError
		if err != nil && !errors.As(err, &nm) {
			return false, invalidChoicePath(r.variable)
		}
		return (err == nil) == (r.operand == true), nil
	}
	if err != nil {
		return false, invalidChoicePath(r.variable)
	}
	operand := r.operand
	if strings.HasSuffix(r.op, "Path") {
		p, _ := operand.(string)
		if operand, err = resolve(p); err != nil {
			return false, invalidChoicePath(p)
		}
	}
	return compare(strings.TrimSuffix(r.op, "Path"), v, operand), nil
}

func invalidChoicePath(path string) *stateError {
	return stateErrorf(errRuntime, "Invalid path '%s': The choice state's condition path references an invalid value.", path)
}

// compare applies a comparison operator (without its Path suffix); values
// of the wrong type never match.
func compare(op string, v, operand any) bool {
	switch op {
	case "IsNull":
		return (v == nil) == (operand == true)
	case "IsNumeric":
		_, ok := jsonvalue.Float(v)
		return ok == (operand == true)
	case "IsString":
		_, ok := v.(string)
		return ok == (operand == true)
	case "IsBoolean":
		_, ok := v.(bool)
		return ok == (operand == true)
	case "IsTimestamp":
		_, ok := timestamp(v)
		return ok == (operand == true)
	case "BooleanEquals":
		a, ok1 := v.(bool)
		b, ok2 := operand.(bool)
		return ok1 && ok2 && a == b
	case "StringMatches":
		s, ok1 := v.(string)
		p, ok2 := operand.(string)
		return ok1 && ok2 && wildcardMatch(p, s)
	}
	var c int
	switch {
	case strings.HasPrefix(op, "String"):
		a, ok1 := v.(string)
		b, ok2 := operand.(string)
		if !ok1 || !ok2 {
			return false
		}
		c = strings.Compare(a, b)
		op = strings.TrimPrefix(op, "String")
	case strings.HasPrefix(op, "Numeric"):
		a, ok1 := jsonvalue.Float(v)
		b, ok2 := jsonvalue.Float(operand)
		if !ok1 || !ok2 {
			return false
		}
		c = cmpFloat(a, b)
		op = strings.TrimPrefix(op, "Numeric")
	case strings.HasPrefix(op, "Timestamp"):
		a, ok1 := timestamp(v)
		b, ok2 := timestamp(operand)
		if !ok1 || !ok2 {
			return false
		}
		c = a.Compare(b)
		op = strings.TrimPrefix(op, "Timestamp")
	default:
		return false
	}
	switch op {
	case "Equals":
		return c == 0
	case "LessThan":
		return c < 0
	case "GreaterThan":
		return c > 0
	case "LessThanEquals":
		return c <= 0
	case "GreaterThanEquals":
		return c >= 0
	}
	return false
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// timestamp parses an RFC 3339 timestamp as Step Functions accepts it:
// an upper-case T and Z.
func timestamp(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok || strings.ContainsAny(s, "tz") {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// wildcardMatch matches s against a StringMatches pattern: * matches any
// run of characters, \* a literal star and \\ a literal backslash.
func wildcardMatch(pattern, s string) bool {
	type tok struct {
		star bool
		r    rune
	}
	var toks []tok
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		switch {
		case rs[i] == '\\' && i+1 < len(rs):
			i++
			toks = append(toks, tok{r: rs[i]})
		case rs[i] == '*':
			toks = append(toks, tok{star: true})
		default:
			toks = append(toks, tok{r: rs[i]})
		}
	}
	text := []rune(s)
	ti, pi, starP, starT := 0, 0, -1, 0
	for ti < len(text) {
		switch {
		case pi < len(toks) && !toks[pi].star && toks[pi].r == text[ti]:
			ti++
			pi++
		case pi < len(toks) && toks[pi].star:
			starP, starT = pi, ti
			pi++
		case starP >= 0:
			starT++
			ti, pi = starT, starP+1
		default:
			return false
		}
	}
	for pi < len(toks) && toks[pi].star {
		pi++
	}
	return pi == len(toks)
}
