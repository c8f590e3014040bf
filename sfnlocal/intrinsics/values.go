package intrinsics

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

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
	f, ok := jsonvalue.Float(v)
	if !ok {
		return 0, invalid(fn, "expected a number, got "+jsonvalue.TypeName(v))
	}
	return javaInt(f), nil
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
	case *jsonvalue.Object:
		keys := slices.Sorted(slices.Values(x.Keys()))
		b.WriteByte('{')
		for _, k := range keys {
			v, _ := x.Get(k)
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			writeKey(b, v)
			b.WriteByte(',')
		}
		b.WriteByte('}')
	default:
		if f, ok := jsonvalue.Float(v); ok {
			if r, ok := jsonvalue.Rat(v); ok {
				b.WriteString("n" + r.RatString())
				return
			}
			b.WriteString("n" + strconv.FormatFloat(f, 'g', -1, 64))
			return
		}
		b.WriteString(jsonvalue.Encode(v))
	}
}
