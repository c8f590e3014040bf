package sfnlocal

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// Map's numeric fields read through a path are checked as AWS checks them
// (each check's text is AWS's): MaxConcurrencyPath and
// ToleratedFailureCountPath must hold an integer, or a string holding one
// ("1"); ToleratedFailurePercentagePath a number from 0 to 100, or a string
// holding an integer. Every failure is States.Runtime.

// pathValueText renders a value in these causes: a string as itself,
// anything else as JSON.
func pathValueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return jsonvalue.Encode(v)
}

// stringInteger reads a string holding an integer, as AWS accepts one.
func stringInteger(v any) (int64, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil
}

// jsonInteger reads a JSON number written as an integer.
func jsonInteger(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// maxConcurrencyFromPath checks MaxConcurrencyPath's value. A number with
// a fraction is cut to its integer part, as AWS does.
func (t *thread) maxConcurrencyFromPath(path string, v any) (float64, *stateError) {
	n, ok := stringInteger(v)
	if !ok {
		if f, isNum := v.(json.Number); isNum {
			if x, err := f.Float64(); err == nil && !math.IsInf(x, 0) {
				n, ok = int64(x), true
			}
		}
	}
	switch {
	case !ok:
		return 0, t.runtimef(`The MaxConcurrencyPath field refers to value "%s" which is not a valid integer: %s`, pathValueText(v), path)
	case n < 0:
		return 0, t.runtimef("Expected non-negative integer for MaxConcurrency, got '%d' instead.", n)
	}
	return float64(n), nil
}

// toleratedCountFromPath checks ToleratedFailureCountPath's value.
func (t *thread) toleratedCountFromPath(path string, v any) (float64, *stateError) {
	n, ok := jsonInteger(v)
	if !ok {
		n, ok = stringInteger(v)
	}
	switch {
	case !ok:
		return 0, t.runtimef(`The ToleratedFailureCountPath field refers to value "%s" which is not a valid integer: %s`, pathValueText(v), path)
	case n < 0:
		return 0, t.runtimef("ToleratedFailureCount cannot be negative.")
	}
	return float64(n), nil
}

// toleratedPercentFromPath checks ToleratedFailurePercentagePath's value.
func (t *thread) toleratedPercentFromPath(path string, v any) (float64, *stateError) {
	var f float64
	ok := false
	if n, isNum := v.(json.Number); isNum {
		if x, err := n.Float64(); err == nil {
			f, ok = x, true
		}
	} else if n, isInt := stringInteger(v); isInt {
		f, ok = float64(n), true
	}
	switch {
	case !ok:
		return 0, t.runtimef(`The ToleratedFailurePercentagePath field refers to value "%s" which is not a valid float: %s`, pathValueText(v), path)
	case f < 0 || f > 100:
		return 0, t.runtimef("ToleratedFailurePercentage must be between 0 and 100.")
	}
	return f, nil
}

// numberFromPath resolves a Map's numeric Path field against in.
func (t *thread) numberFromPath(path string, in any, check func(string, any) (float64, *stateError)) (float64, *stateError) {
	v, err := t.resolver(in)(path)
	if err != nil {
		return 0, t.noMatch(path, err)
	}
	return check(path, v)
}

// itemsError is AWS's error for Items or the Map's input (after ItemsPath)
// that is not an array: States.QueryEvaluationError, recorded in an
// EvaluationFailed event before MapStateFailed. JSONata's Items names its
// field; the input does not.
func (t *thread) itemsError(v any) *stateError {
	if t.st.lang == langJSONata && t.st.items.set {
		return t.evaluationFailed(errQueryEvaluation, fmt.Sprintf("The JSONata expression '%s' specified for the field 'Items' returned an unexpected result type. Expected 'array', but was '%s' for value: %s",
			jsonataText(t.st.items.value), jsonataTypeName(v), jsonataValueText(v)), "Items")
	}
	return t.evaluationFailed(errQueryEvaluation, "Map state input must be an array but was: "+jsonvalue.Encode(v), "")
}

// jsonataText is the expression of a "{% … %}" field, as AWS quotes it.
func jsonataText(v any) string {
	s, _ := v.(string)
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{%") && strings.HasSuffix(s, "%}") {
		s = strings.TrimSpace(s[2 : len(s)-2])
	}
	return s
}

// jsonataTypeName names a value's JSONata type.
func jsonataTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// jsonataValueText renders a value after its type in AWS's cause: JSON.
func jsonataValueText(v any) string { return jsonvalue.Encode(v) }
