package jsonata

import (
	"math"
	"strings"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// jsonStringify is JavaScript's JSON.stringify(v) as jsonata-js uses it
// in error messages: compact, numbers as JavaScript prints them,
// undefined and functions as "undefined" at the top level.
func jsonStringify(v any) string {
	var b strings.Builder
	if !writeJSON(&b, v) {
		return "undefined"
	}
	return b.String()
}

// writeJSON writes v as JSON and reports false for values JSON.stringify
// leaves out (undefined, functions).
func writeJSON(b *strings.Builder, v any) bool { return writeJSONAt(b, v, 0) }

func writeJSONAt(b *strings.Builder, v any, depth int) bool {
	checkValueDepth(depth)
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b.WriteString("null")
		} else {
			b.WriteString(js.NumberToString(x))
		}
	case string:
		js.WriteQuoted(b, x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if !writeJSONAt(b, e, depth+1) {
				b.WriteString("null")
			}
		}
		b.WriteByte(']')
	case *jsonvalue.Object:
		b.WriteByte('{')
		first := true
		x.Range(func(k string, e any) bool {
			if _, builtin := e.(*Builtin); IsUndefined(e) || isFunction(e) && !builtin {
				return true
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			js.WriteQuoted(b, k)
			b.WriteByte(':')
			writeJSONAt(b, e, depth+1)
			return true
		})
		b.WriteByte('}')
	case *Regex:
		b.WriteString("{}")
	case *Builtin:
		// jsonata-js's built-ins are plain objects; JSON leaves out their
		// implementation and the signature's validate function
		b.WriteString(`{"_jsonata_function":true`)
		if x.Signature != "" {
			b.WriteString(`,"signature":{"definition":`)
			js.WriteQuoted(b, x.Signature)
			b.WriteByte('}')
		}
		b.WriteByte('}')
	default:
		return false
	}
	return true
}

// jsText is JavaScript's String(v) for the values tokens and inserts take.
func jsText(v any) string { return jsTextAt(v, 0) }

func jsTextAt(v any, depth int) string {
	checkValueDepth(depth)
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return js.NumberToString(x)
	case *Regex:
		return "/" + x.Source + "/" + x.Flags + "g"
	case undefined:
		return "undefined"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			if e != nil && !IsUndefined(e) {
				parts[i] = jsTextAt(e, depth+1)
			}
		}
		return strings.Join(parts, ",")
	case *jsonvalue.Object:
		return "[object Object]"
	}
	return ""
}
