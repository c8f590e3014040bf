// Package jsonvalue holds the JSON values the engine and its expression
// packages share, and the helpers that work on them. A value is one of
// *Object (members in order), []any, string, json.Number (the exact text of
// a number), bool or nil. Values are immutable once built: a value may be
// shared by executions, branches and iterations, so code that changes one
// copies it first (Object.Clone, DeepCopy).
package jsonvalue

import (
	"encoding/json"
	"math"
	"strconv"
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

// TypeName names v's JSON type as AWS's messages do: "object", "array",
// "string", "number", "boolean" or "null".
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case *Object:
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
