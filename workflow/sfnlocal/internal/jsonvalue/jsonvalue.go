// Package jsonvalue holds the helpers the engine and its expression packages
// share for JSON values as encoding/json decodes them with UseNumber:
// map[string]any, []any, string, json.Number, bool and nil.
package jsonvalue

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Float converts a JSON number (json.Number or a Go number) to float64. A
// json.Number too large for float64 converts to ±Inf.
func Float(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		return f, err == nil || math.IsInf(f, 0)
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// Int is i as a json.Number.
func Int(i int64) json.Number { return json.Number(strconv.FormatInt(i, 10)) }

// Encode renders v compactly, without HTML escaping, as Step Functions does;
// a value that cannot be encoded renders as "null".
func Encode(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	s := b.String()
	return s[:len(s)-1]
}

// TypeName names v's JSON type as AWS's messages do: "object", "array",
// "string", "number", "boolean" or "null".
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case *Object, map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	}
	return "number"
}
