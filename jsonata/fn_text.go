package jsonata

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
)

// Strings are measured and cut in Unicode code points, as jsonata-js does
// (it iterates strings with for…of).

// fnLength is $length(str).
func fnLength(_ *Call, args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	return float64(utf8.RuneCountInString(s)), nil
}

// fnSubstring is $substring(str, start, length): a negative start counts
// from the end; a missing length means to the end.
func fnSubstring(_ *Call, args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	start, _ := args[1].(float64)
	return fnSubstringOf(s, start, args[2]), nil
}

func fnSubstringOf(s string, start float64, length any) string {
	runes := []rune(s)
	n := float64(len(runes))
	if n+start < 0 {
		start = 0
	}
	end := math.Inf(1)
	if l, ok := length.(float64); ok {
		if l <= 0 {
			return ""
		}
		if start >= 0 {
			end = start + l
		} else {
			end = n + start + l
		}
	}
	lo, hi := fnSliceIndex(start, len(runes)), fnSliceIndex(end, len(runes))
	if hi <= lo {
		return ""
	}
	return string(runes[lo:hi])
}

// fnSliceIndex is how JavaScript's Array.prototype.slice reads an index:
// truncated, negative from the end, clamped to [0, n].
func fnSliceIndex(f float64, n int) int {
	if f != f {
		return 0
	}
	f = math.Trunc(f)
	if f < 0 {
		f = math.Max(float64(n)+f, 0)
	}
	return int(math.Min(f, float64(n)))
}

// fnSubstringBefore is $substringBefore(str, chars).
func fnSubstringBefore(_ *Call, args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	before, _, _ := strings.Cut(s, jsText(args[1]))
	return before, nil
}

// fnSubstringAfter is $substringAfter(str, chars).
func fnSubstringAfter(c *Call, args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	if _, after, found := strings.Cut(s, jsText(args[1])); found {
		if IsUndefined(args[1]) {
			// jsonata-js finds "undefined", then reads the length of undefined
			return nil, fnError(c, "", "Cannot read properties of undefined (reading 'length')", nil)
		}
		return after, nil
	}
	return s, nil
}

// fnUppercase is $uppercase(str).
func fnUppercase(_ *Call, args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	return js.ToUpperCase(s), nil
}

// fnLowercase is $lowercase(str).
func fnLowercase(_ *Call, args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	return js.ToLowerCase(s), nil
}

// fnTrim is $trim(str): runs of spaces, tabs, carriage returns and line
// feeds become one space, then a leading and a trailing space go.
func fnTrim(_ *Call, args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	var b strings.Builder
	inSpace := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			if !inSpace {
				b.WriteByte(' ')
			}
			inSpace = true
			continue
		}
		inSpace = false
		b.WriteRune(r)
	}
	out := b.String()
	out = strings.TrimPrefix(out, " ")
	return strings.TrimSuffix(out, " "), nil
}

// fnPadLimit bounds the padding $pad builds, as JavaScript's maximum
// string length does.
const fnPadLimit = 1 << 29

// fnPad is $pad(str, width, char): padded with char (default a space) to
// |width| code points, on the right when width is positive and on the
// left when negative.
func fnPad(c *Call, args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	width, _ := args[1].(float64)
	char, _ := args[2].(string)
	if char == "" {
		char = " "
	}
	padLength := math.Abs(width) - float64(utf8.RuneCountInString(s))
	if padLength <= 0 {
		return s, nil
	}
	if padLength != math.Trunc(padLength) || padLength+1 >= 1<<32 {
		// new Array(padLength + 1) takes only whole lengths below 2^32
		return nil, fnError(c, "", "Invalid array length", width)
	}
	if padLength*float64(len(char)) > fnPadLimit {
		return nil, fnError(c, "", "Invalid string length", width)
	}
	n := int(padLength)
	per := utf8.RuneCountInString(char)
	padding := strings.Repeat(char, (n+per-1)/per)
	if per > 1 {
		padding = fnSubstringOf(padding, 0, float64(n))
	}
	if width > 0 {
		return s + padding, nil
	}
	return padding + s, nil
}

// fnJoin is $join(strings, separator).
func fnJoin(_ *Call, args []any) (any, error) {
	strs, ok := args[0].([]any)
	if !ok {
		return Undefined, nil
	}
	sep, _ := args[1].(string)
	parts := make([]string, len(strs))
	for i, s := range strs {
		parts[i], _ = s.(string)
	}
	return strings.Join(parts, sep), nil
}
