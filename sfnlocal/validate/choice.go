package validate

// operand kinds of the JSONPath Choice comparison operators.
const (
	opString = iota
	opNumber
	opBoolean
	opTimestamp
	opPath
)

// comparisons maps each comparison operator to the value it takes.
var comparisons = func() map[string]int {
	m := map[string]int{"StringMatches": opString, "BooleanEquals": opBoolean, "BooleanEqualsPath": opPath}
	for _, kind := range []struct {
		prefix string
		op     int
	}{{"String", opString}, {"Numeric", opNumber}, {"Timestamp", opTimestamp}} {
		for _, cmp := range []string{"Equals", "LessThan", "GreaterThan", "LessThanEquals", "GreaterThanEquals"} {
			m[kind.prefix+cmp] = kind.op
			m[kind.prefix+cmp+"Path"] = opPath
		}
	}
	for _, is := range []string{"IsNull", "IsPresent", "IsNumeric", "IsString", "IsBoolean", "IsTimestamp"} {
		m[is] = opBoolean
	}
	return m
}()

// ruleSelectors are the fields one of which every rule must have.
var ruleSelectors = []string{"And", "Or", "Not", "Variable", "Condition"}

// choice checks a Choice state's rules and records their transitions.
func (c *checker) choice(s *state) {
	if c.required(s.obj, s.loc, "Choices") {
		loc := child(s.loc, "Choices")
		if v := s.obj["Choices"]; c.expectType(loc, v, "ARRAY") {
			rules := v.([]any)
			if len(rules) == 0 {
				c.schema(loc, "Value cannot be empty")
			}
			for i, r := range rules {
				c.choiceRule(s, index(loc, i), r, true)
			}
		}
	}
	if v, ok := s.obj["Default"]; ok {
		c.transition(s, child(s.loc, "Default"), v)
	}
}

// choiceRule checks one rule; top is false for rules nested in And, Or and
// Not, which carry no Next.
func (c *checker) choiceRule(s *state, loc string, v any, top bool) {
	r, ok := v.(map[string]any)
	if !ok {
		c.expectType(loc, v, "OBJECT")
		return
	}
	if s.ql == jsonata {
		c.jsonataRule(s, loc, r)
	} else {
		c.jsonPathRule(s, loc, r, top)
	}
	if !top {
		return
	}
	if v, ok := r["Next"]; ok {
		c.transition(s, child(loc, "Next"), v)
	}
	if v, ok := r["Assign"]; ok {
		c.assign(child(loc, "Assign"), v, s.ql, false)
	}
}

// jsonataRule checks a JSONata rule: a Condition and a Next.
func (c *checker) jsonataRule(s *state, loc string, r map[string]any) {
	allowed := set("Condition", "Next", "Comment", "Assign", "Output")
	for _, f := range sortedKeys(r) {
		switch _, cmp := comparisons[f]; {
		case allowed[f]:
		case cmp || f == "Variable" || f == "And" || f == "Or" || f == "Not":
			c.wrongLanguage(loc, f, jsonata)
		default:
			c.schema(loc, "Field '%s' is not supported", f)
		}
	}
	c.required(r, loc, "Condition", "Next")
	if v, ok := r["Condition"]; ok {
		cloc := child(loc, "Condition")
		if expr, ok := jsonataExpr(v); ok {
			c.jsonataExpression(cloc, expr, false)
		} else if _, ok := v.(bool); !ok {
			c.schema(cloc, "The value for the field 'Condition' must be a JSONata expression")
		}
	}
	if v, ok := r["Output"]; ok {
		c.jsonataValues(child(loc, "Output"), v, false)
	}
}

// jsonPathRule checks a JSONPath rule: Variable with one comparison, or a
// Boolean combination of nested rules.
func (c *checker) jsonPathRule(s *state, loc string, r map[string]any, top bool) {
	allowed := set("Variable", "And", "Or", "Not", "Comment")
	if top {
		allowed["Next"], allowed["Assign"] = true, true
	}
	var ops []string
	for _, f := range sortedKeys(r) {
		_, cmp := comparisons[f]
		switch {
		case cmp:
			ops = append(ops, f)
		case allowed[f]:
		case top && (f == "Condition" || f == "Output"):
			c.wrongLanguage(loc, f, jsonPath)
		default:
			c.schema(loc, "Field '%s' is not supported", f)
		}
	}
	if top {
		c.required(r, loc, "Next")
	}
	selectors := 0
	for _, f := range ruleSelectors[:4] {
		if has(r, f) {
			selectors++
		}
	}
	if selectors != 1 {
		c.schema(loc, "The object must have only one of the following fields, %s", list(ruleSelectors))
	}
	if v, ok := r["Variable"]; ok {
		c.path(child(loc, "Variable"), "Variable", v, anyPath)
		switch {
		case len(ops) == 0:
			c.schema(loc, "A comparison operator is required with the field 'Variable'")
		case len(ops) > 1:
			c.schema(loc, "There should only be one of the following fields: %s", list(ops))
		}
	} else if len(ops) > 0 {
		c.schema(loc, "The field '%s' requires the field 'Variable'", ops[0])
	}
	for _, op := range ops {
		c.comparison(child(loc, op), op, r[op])
	}
	for _, f := range []string{"And", "Or"} {
		if v, ok := r[f]; ok {
			c.nestedRules(s, child(loc, f), v)
		}
	}
	if v, ok := r["Not"]; ok {
		c.choiceRule(s, child(loc, "Not"), v, false)
	}
}

func (c *checker) nestedRules(s *state, loc string, v any) {
	if !c.expectType(loc, v, "ARRAY") {
		return
	}
	rules := v.([]any)
	if len(rules) == 0 {
		c.schema(loc, "Value cannot be empty")
	}
	for i, r := range rules {
		c.choiceRule(s, index(loc, i), r, false)
	}
}

// comparison checks a comparison operator's value.
func (c *checker) comparison(loc, op string, v any) {
	switch comparisons[op] {
	case opString:
		c.expectType(loc, v, "STRING")
	case opNumber:
		c.expectType(loc, v, "NUMBER")
	case opBoolean:
		c.expectType(loc, v, "BOOLEAN")
	case opTimestamp:
		c.timestamp(loc, v, jsonPath)
	case opPath:
		c.path(loc, op, v, anyPath)
	}
}
