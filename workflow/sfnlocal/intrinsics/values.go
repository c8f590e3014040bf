package intrinsics

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

func toFloat(v any) (float64, bool) {
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

// javaInt converts like Java's (int) cast of a double: truncation toward
// zero, saturating at the int32 bounds.
func javaInt(f float64) int64 {
	if math.IsNaN(f) {
		return 0
	}
	return int64(max(min(math.Trunc(f), math.MaxInt32), math.MinInt32))
}

// javaRound is Java's Math.round(double): the nearest integer, ties up.
func javaRound(f float64) float64 { return math.Floor(f + 0.5) }

func intArg(fn string, v any) (int64, error) {
	f, ok := toFloat(v)
	if !ok {
		return 0, invalid(fn, "expected a number, got "+kind(v))
	}
	return javaInt(f), nil
}

func num(i int64) json.Number { return json.Number(strconv.FormatInt(i, 10)) }

// toJSON renders v as compact JSON text, without HTML escaping.
func toJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// key is a canonical text for v, equal for equal JSON values (numbers by
// value, objects regardless of key order).
func key(v any) string {
	var b strings.Builder
	writeKey(&b, v)
	return b.String()
}

func writeKey(b *strings.Builder, v any) {
	switch x := v.(type) {
	case []any:
		b.WriteByte('[')
		for _, e := range x {
			writeKey(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			writeKey(b, x[k])
			b.WriteByte(',')
		}
		b.WriteByte('}')
	default:
		if f, ok := toFloat(v); ok {
			if r, ok := new(big.Rat).SetString(toJSON(v)); ok {
				b.WriteString("n" + r.RatString())
				return
			}
			b.WriteString("n" + strconv.FormatFloat(f, 'g', -1, 64))
			return
		}
		b.WriteString(toJSON(v))
	}
}

func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	if _, ok := toFloat(v); ok {
		return "number"
	}
	return "unknown"
}
