package intrinsics

import (
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

func format(args []any, nodes []node) (any, error) {
	const fn = "States.Format"
	tmpl, ok := args[0].(string)
	if !ok {
		return nil, invalid(fn, "the template must be a string, got "+jsonvalue.TypeName(args[0]))
	}
	raw, escapes := tmpl, false
	if nodes[0].isStr {
		raw, escapes = nodes[0].raw, true
	}
	var b strings.Builder
	next := 1
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '\\' && escapes:
			i++
			b.WriteByte(raw[i])
		case c == '{' && i+1 < len(raw) && raw[i+1] == '}':
			i++
			if next >= len(args) {
				return nil, invalid(fn, "the number of arguments does not match the occurrences of {}")
			}
			writeFormatted(&b, args[next])
			next++
		case c == '{' || c == '}':
			return nil, invalid(fn, fmt.Sprintf("unmatched %q in the template; escape it as \\%c", c, c))
		default:
			b.WriteByte(c)
		}
	}
	if next != len(args) {
		return nil, invalid(fn, "the number of arguments does not match the occurrences of {}")
	}
	return b.String(), nil
}

func stringToJSON(args []any, _ []node) (any, error) {
	const fn = "States.StringToJson"
	s, ok := args[0].(string)
	if !ok {
		return nil, invalid(fn, "expected a string, got "+jsonvalue.TypeName(args[0]))
	}
	if strings.TrimSpace(s) == "" {
		return nil, nil // AWS returns null for an empty string
	}
	v, err := jsonvalue.Decode([]byte(s))
	if err != nil {
		return nil, invalid(fn, "invalid JSON: "+err.Error())
	}
	return v, nil // objects keep the text's member order
}

func jsonToString(args []any, _ []node) (any, error) {
	return jsonvalue.Encode(args[0]), nil
}

func jsonMerge(args []any, _ []node) (any, error) {
	const fn = "States.JsonMerge"
	a, ok := args[0].(*jsonvalue.Object)
	b, ok2 := args[1].(*jsonvalue.Object)
	if !ok || !ok2 {
		return nil, invalid(fn, fmt.Sprintf("expected two objects, got %s and %s", jsonvalue.TypeName(args[0]), jsonvalue.TypeName(args[1])))
	}
	if args[2] == true {
		return nil, invalid(fn, "deep merging is not supported; the third argument must be false")
	}
	// a's members in their order, b's values replacing a's in place and
	// b's new keys after them.
	out := a.Clone()
	b.Range(func(k string, v any) bool { out.Set(k, v); return true })
	return out, nil
}

// stringSplit tokenizes like java.util.StringTokenizer: every character of
// the delimiter string is a delimiter and empty tokens are dropped.
func stringSplit(args []any, _ []node) (any, error) {
	const fn = "States.StringSplit"
	s, ok := args[0].(string)
	d, ok2 := args[1].(string)
	if !ok || !ok2 {
		return nil, invalid(fn, fmt.Sprintf("expected two strings, got %s and %s", jsonvalue.TypeName(args[0]), jsonvalue.TypeName(args[1])))
	}
	out := []any{}
	for _, t := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(d, r) }) {
		out = append(out, t)
	}
	return out, nil
}

func uuid(_ []any, _ []node) (any, error) {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		return nil, &Error{Name: ErrRuntime, Message: "Invalid arguments in States.UUID", Detail: err.Error()}
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := fmt.Sprintf("%x", u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}

// writeFormatted writes a States.Format argument as AWS renders it: a
// string as itself, an object as {key=value, …} and an array as
// [value, …] (Java's rendering of maps and lists), their strings
// unquoted; numbers, booleans and null as in JSON.
func writeFormatted(b *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		b.WriteString(x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeFormatted(b, e)
		}
		b.WriteByte(']')
	case *jsonvalue.Object:
		b.WriteByte('{')
		i := 0
		x.Range(func(k string, e any) bool {
			if i > 0 {
				b.WriteString(", ")
			}
			i++
			b.WriteString(k)
			b.WriteByte('=')
			writeFormatted(b, e)
			return true
		})
		b.WriteByte('}')
	default:
		b.WriteString(jsonvalue.Encode(v))
	}
}
