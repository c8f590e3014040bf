package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Encode renders v compactly, without HTML escaping, as Step Functions does;
// a value that cannot be encoded renders as "null".
func Encode(v any) string {
	b, err := AppendJSON(nil, v)
	if err != nil {
		return "null"
	}
	return string(b)
}

// AppendJSON appends the compact JSON text of v to b, objects with their
// members in order and strings escaped as encoding/json escapes them
// without HTML escaping. A value outside this package's convention is
// encoded by encoding/json.
func AppendJSON(b []byte, v any) ([]byte, error) {
	out, err := appendJSON(b, v, -1)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EncodeWithin renders v as Encode does when its text is at most max
// bytes long; otherwise ok is false. It stops writing once past max, so a
// value that shares one large member many times costs no more than max.
func EncodeWithin(v any, max int) (text string, ok bool) {
	b, err := appendJSON(nil, v, max)
	if err == errTooLarge || len(b) > max {
		return "", false
	}
	if err != nil {
		return "null", true
	}
	return string(b), true
}

var errTooLarge = errors.New("jsonvalue: text too large")

// appendJSON is AppendJSON that gives up with errTooLarge once b is
// longer than limit, unless limit is negative.
func appendJSON(b []byte, v any, limit int) ([]byte, error) {
	if limit >= 0 && len(b) > limit {
		return b, errTooLarge
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, x), nil
	case bool:
		if x {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case json.Number:
		if x == "" {
			return append(b, '0'), nil // as encoding/json writes an empty Number
		}
		if !validNumber(string(x)) {
			return nil, fmt.Errorf("invalid number literal %q", string(x))
		}
		return append(b, x...), nil
	case *Object:
		if x == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '{')
		for i, k := range x.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendJSON(b, x.vals[k], limit); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e, limit); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

const hex = "0123456789abcdef"

// appendString quotes s as encoding/json does with HTML escaping off:
// short escapes for \ " \b \f \n \r \t, \u00XX for other control
// characters, \u2028 and \u2029 escaped, invalid UTF-8 as \ufffd.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// validNumber reports whether s is a JSON number.
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
