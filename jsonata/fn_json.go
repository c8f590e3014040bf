package jsonata

import (
	"math"
	"strconv"
	"strings"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// fnJSONWriter writes a value as $string does: JSON.stringify with
// numbers rounded to 15 significant digits and functions as "", indented
// when indent is set. A non-finite number is error D1001.
type fnJSONWriter struct {
	b      *strings.Builder
	indent string // "" for compact output
	err    error
	depth  int // of the array or object being written
	limit  int // the most bytes to write; 0 for DefaultMaxStringBytes
}

func (w *fnJSONWriter) value(v any, prefix string) {
	switch v := v.(type) {
	case nil:
		w.b.WriteString("null")
	case bool:
		w.b.WriteString(strconv.FormatBool(v))
	case float64:
		w.number(v)
	case string:
		js.WriteQuoted(w.b, v)
	case []any:
		w.array(v, prefix)
	case *jsonvalue.Object:
		w.object(v, prefix)
	case Function:
		w.b.WriteString(`""`)
	default:
		w.b.WriteString("null")
	}
}

func (w *fnJSONWriter) number(f float64) {
	if math.IsInf(f, 0) && w.err == nil {
		w.err = &Error{Code: "D1001", Message: "Number out of range: null", Value: f}
	}
	// 15 digits can round the largest numbers up to infinity: null too
	if f = js.ToPrecision15(f); math.IsNaN(f) || math.IsInf(f, 0) {
		w.b.WriteString("null")
		return
	}
	w.b.WriteString(js.NumberToString(f))
}

func (w *fnJSONWriter) array(a []any, prefix string) {
	if len(a) == 0 {
		w.b.WriteString("[]")
		return
	}
	w.enter()
	defer w.leave()
	inner := prefix + w.indent
	w.b.WriteByte('[')
	for i, x := range a {
		if w.full() {
			return
		}
		if i > 0 {
			w.b.WriteByte(',')
		}
		w.newline(inner)
		w.value(x, inner)
	}
	w.newline(prefix)
	w.b.WriteByte(']')
}

func (w *fnJSONWriter) object(o *jsonvalue.Object, prefix string) {
	if o.Len() == 0 {
		w.b.WriteString("{}")
		return
	}
	w.enter()
	defer w.leave()
	inner := prefix + w.indent
	w.b.WriteByte('{')
	for i, k := range o.Keys() {
		if w.full() {
			return
		}
		if i > 0 {
			w.b.WriteByte(',')
		}
		w.newline(inner)
		js.WriteQuoted(w.b, k)
		w.b.WriteByte(':')
		if w.indent != "" {
			w.b.WriteByte(' ')
		}
		x, _ := o.Get(k)
		w.value(x, inner)
	}
	w.newline(prefix)
	w.b.WriteByte('}')
}

// full reports whether writing has failed or gone past the limit (a
// value sharing its arrays could otherwise write exponentially much),
// setting the error for the latter.
func (w *fnJSONWriter) full() bool {
	if w.err != nil {
		return true
	}
	limit := w.limit
	if limit == 0 {
		limit = DefaultMaxStringBytes
	}
	if w.b.Len() > limit {
		w.err = errStringLength()
		return true
	}
	return false
}

func (w *fnJSONWriter) enter() {
	w.depth++
	checkValueDepth(w.depth)
}

func (w *fnJSONWriter) leave() { w.depth-- }

func (w *fnJSONWriter) newline(prefix string) {
	if w.indent != "" {
		w.b.WriteByte('\n')
		w.b.WriteString(prefix)
	}
}
