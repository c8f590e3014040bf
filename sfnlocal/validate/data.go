package validate

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxVariableNameLength is the longest variable name Assign accepts.
const maxVariableNameLength = 80

// jsonataScanned are the fields of a JSONata state whose "{% %}" strings are
// checked wherever they sit; other fields check their own expressions.
var jsonataScanned = []string{"Output", "Arguments", "Items", "ItemSelector", "Credentials", "ItemReader", "ResultWriter"}

// dataFields checks the fields that shape a state's data: paths and
// payload templates in JSONPath, expressions in JSONata, and Assign.
func (c *checker) dataFields(s *state) {
	allowed := stateFields[s.typ]
	field := func(f string) (any, string, bool) {
		v, ok := s.obj[f]
		return v, child(s.loc, f), ok && allowed[f]
	}
	if s.ql == jsonPath {
		for _, f := range []string{"InputPath", "OutputPath"} {
			if v, loc, ok := field(f); ok && v != nil {
				c.path(loc, f, v, anyPath)
			}
		}
		if v, loc, ok := field("ResultPath"); ok && v != nil {
			c.path(loc, "ResultPath", v, resultPath)
		}
		for _, f := range []string{"Parameters", "ResultSelector", "ItemSelector"} {
			if v, loc, ok := field(f); ok && c.expectType(loc, v, "OBJECT") {
				c.template(loc, v)
			}
		}
	} else {
		for _, f := range jsonataScanned {
			if v, loc, ok := field(f); ok {
				c.jsonataValues(loc, v, false)
			}
		}
	}
	if v, loc, ok := field("Assign"); ok {
		c.assign(loc, v, s.ql, false)
	}
}

// path checks a field holding a JSONPath.
func (c *checker) path(loc, field string, v any, r pathRules) {
	if !c.expectType(loc, v, "STRING") {
		return
	}
	if checkPath(v.(string), r) != nil {
		c.schema(loc, "The value for the field '%s' must be a valid JSONPath", field)
	}
}

// template checks a JSONPath payload template (Parameters, ResultSelector,
// ItemSelector, …): every "key.$" holds a path or an intrinsic function.
func (c *checker) template(loc string, v any) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			kloc := child(loc, k)
			if strings.HasSuffix(k, ".$") {
				c.dynamicValue(kloc, k, v[k])
				continue
			}
			if s, ok := v[k].(string); ok && looksDynamic(s) {
				c.warn(CodeNoDollar, kloc, "The value for the field '%s' looks like a JSONPath or an intrinsic function, but the field name does not end with '.$'", k)
			}
			c.template(kloc, v[k])
		}
	case []any:
		for i, e := range v {
			c.template(index(loc, i), e)
		}
	}
}

// dynamicValue checks the value of a "key.$" field.
func (c *checker) dynamicValue(loc, key string, v any) {
	if s, ok := v.(string); ok && (checkPath(s, anyPath) == nil || checkIntrinsic(s) == nil) {
		return
	}
	c.schema(loc, "The value for the field '%s' must be a valid JSONPath or a valid intrinsic function call", key)
}

func looksDynamic(s string) bool {
	if strings.HasPrefix(s, "$.") || strings.HasPrefix(s, "$$.") {
		return true
	}
	return strings.HasPrefix(s, "States.") && checkIntrinsic(s) == nil
}

// assign checks an Assign block: valid variable names, and values that are
// templates (JSONPath) or expressions (JSONata).
func (c *checker) assign(loc string, v any, ql string, errorOutput bool) {
	m, ok := v.(map[string]any)
	if !ok {
		c.expectType(loc, v, "OBJECT")
		return
	}
	for _, k := range sortedKeys(m) {
		kloc, name := child(loc, k), k
		switch {
		case ql == jsonPath && strings.HasSuffix(k, ".$"):
			name = strings.TrimSuffix(k, ".$")
			c.dynamicValue(kloc, k, m[k])
		case ql == jsonPath:
			c.template(kloc, m[k])
		default:
			c.jsonataValues(kloc, m[k], errorOutput)
		}
		c.variableName(kloc, name)
	}
}

// variableName checks a name Assign writes: a Unicode identifier (ID_Start
// then ID_Continue; a leading '_' is accepted too) of at most 80
// characters, and not the reserved "states".
func (c *checker) variableName(loc, name string) {
	switch {
	case name == "states":
		c.schema(loc, "The variable name 'states' is reserved")
	case utf8.RuneCountInString(name) > maxVariableNameLength:
		c.schema(loc, "The variable name '%s' exceeds the maximum length of %d characters", name, maxVariableNameLength)
	case !isIdentifier(name):
		c.schema(loc, "The variable name '%s' is not a valid identifier", name)
	}
}

func isIdentifier(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		start := r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r)
		cont := start || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) ||
			unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Pc, r)
		if (i == 0 && !start) || !cont {
			return false
		}
	}
	return true
}
