package lang

import (
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sfnapprovals/approvals/workflow/sfnlocal/internal/jsonvalue"
)

// fnError is an error raised by a built-in: jsonata-js reports it at the
// call, with the function's name as the token.
func fnError(c *Call, code, message string, value any) *Error {
	e := &Error{Code: code, Message: message, Value: value}
	if c != nil {
		e.Position, e.Token = c.Position, c.Name
	}
	return e
}

// fnBoolean is JSONata's cast to boolean ($boolean): empty strings, zero,
// null, empty arrays and objects and functions are false; an array is
// true when any member is. ok is false for Undefined.
func fnBoolean(v any) (b, ok bool) {
	switch v := v.(type) {
	case undefined:
		return false, false
	case bool:
		return v, true
	case string:
		return v != "", true
	case float64:
		return v != 0 && v == v, true
	case []any:
		if len(v) == 1 {
			b, _ := fnBoolean(v[0])
			return b, true
		}
		for _, x := range v {
			if b, _ := fnBoolean(x); b {
				return true, true
			}
		}
		return false, true
	case *jsonvalue.Object:
		return v.Len() > 0, true
	}
	return false, true
}

// fnTruthy is JavaScript's truthiness, which jsonata-js applies to what a
// $sort comparator returns: only undefined, null, false, 0, NaN and ""
// are false; empty arrays and objects are true.
func fnTruthy(v any) bool {
	switch v := v.(type) {
	case undefined, nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case float64:
		return v != 0 && v == v
	}
	return true
}

// fnDeepEqual compares two values as jsonata-js's $distinct does: arrays
// member by member, objects by key set and values, regardless of order.
func fnDeepEqual(a, b any) bool {
	switch a := a.(type) {
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !fnDeepEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case *jsonvalue.Object:
		b, ok := b.(*jsonvalue.Object)
		if !ok || a.Len() != b.Len() {
			return false
		}
		equal := true
		a.Range(func(k string, x any) bool {
			y, found := b.Get(k)
			equal = found && fnDeepEqual(x, y)
			return equal
		})
		return equal
	}
	return fnSameValue(a, b)
}

// fnSameValue is JavaScript's ===: identity for functions, whose Go types
// need not be comparable.
func fnSameValue(a, b any) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// fnLessUTF16 orders strings as JavaScript's < does: by UTF-16 code units,
// which differs from code point order above U+FFFF.
func fnLessUTF16(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return fnUnitKey(ra) < fnUnitKey(rb)
		}
		a, b = a[na:], b[nb:]
	}
	return a == "" && b != ""
}

// fnUnitKey orders runes by their UTF-16 code units: the first unit in the
// high half, the second (for a surrogate pair) in the low half.
func fnUnitKey(r rune) uint32 {
	if hi, lo := utf16.EncodeRune(r); hi != utf8.RuneError {
		return uint32(hi)<<16 | uint32(lo)
	}
	return uint32(r) << 16
}

// fnUTF16Len is the length of s in UTF-16 code units, JavaScript's
// str.length.
func fnUTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}
