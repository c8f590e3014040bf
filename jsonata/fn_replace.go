package jsonata

import (
	"math"
	"strings"
	"unicode/utf16"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// fnReplace is $replace(str, pattern, replacement, limit). A string
// pattern is replaced literally; a regex's matches are replaced by the
// replacement string with $0, $1… substituted, or by what a replacement
// function returns for the match object.
func fnReplace(c *Call, args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	pattern, replacement, limit := args[1], args[2], args[3]
	if pattern == "" {
		return nil, fnError(c, "D3010", "Second argument of replace function cannot be an empty string", pattern)
	}
	if l, ok := limit.(float64); ok && l < 0 {
		return nil, fnError(c, "D3011", "Fourth argument of replace function must evaluate to a positive number", l)
	}
	if !fnUnderLimit(0, limit) {
		return s, nil
	}
	if p, ok := pattern.(string); ok {
		return fnReplaceString(c, s, p, replacement, limit)
	}
	matcher := fnNewMatcher(c, pattern, s)
	m, err := matcher.first()
	if err != nil {
		return nil, fnAt(c, err)
	}
	if m == nil {
		return s, nil
	}
	var b strings.Builder
	position := 0
	for count := 0; m != nil && fnUnderLimit(count, limit); count++ {
		b.WriteString(fnCut(s, position, m.start))
		with, err := fnReplacement(c, replacement, s, m, matcher)
		if err != nil {
			return nil, err
		}
		b.WriteString(with)
		position = m.start + len(m.text)
		if m, err = matcher.next(m); err != nil {
			return nil, fnAt(c, err)
		}
	}
	b.WriteString(fnCut(s, position, len(s)))
	return b.String(), nil
}

// fnReplaceString replaces occurrences of a literal pattern, left to
// right, without substituting $ references.
func fnReplaceString(c *Call, s, pattern string, replacement, limit any) (any, error) {
	if IsUndefined(replacement) {
		replacement = "undefined" // jsonata-js appends it as text
	}
	with, isString := replacement.(string)
	var b strings.Builder
	position := 0
	for count := 0; fnUnderLimit(count, limit); count++ {
		i := strings.Index(s[position:], pattern)
		if i < 0 {
			break
		}
		if !isString {
			// jsonata-js pastes the JavaScript source of the function
			// here; calling it with the match is the useful reading.
			var err error
			m := &fnMatch{text: pattern, end: len(pattern), groups: []any{}}
			if with, err = fnReplacement(c, replacement, pattern, m, nil); err != nil {
				return nil, err
			}
			isString = true
		}
		b.WriteString(s[position : position+i])
		b.WriteString(with)
		position += i + len(pattern)
	}
	b.WriteString(s[position:])
	return b.String(), nil
}

// fnReplacement is what replaces match m of s: the replacement string
// with its $ references substituted, or the replacement function's
// result, which must be a string (D3012).
func fnReplacement(c *Call, replacement any, s string, m *fnMatch, matcher fnMatcher) (string, error) {
	if r, ok := replacement.(string); ok {
		return fnSubstitute(r, m), nil
	}
	arg := m.raw
	if arg == nil {
		arg = fnMatchArg(s, m, matcher)
	}
	res, err := c.Apply(replacement, arg)
	if err != nil {
		return "", err
	}
	s, ok := res.(string)
	if !ok {
		return "", fnError(c, "D3012", "Attempted to replace a matched string with a non-string value", res)
	}
	return s, nil
}

// fnMatchArg is the match object a replacement function receives, as
// jsonata-js builds it: match, start and end (UTF-16 indices), groups,
// and next, a function returning the following match object.
func fnMatchArg(s string, m *fnMatch, matcher fnMatcher) *jsonvalue.Object {
	next := &Builtin{Name: "next", Signature: "<:o>", Impl: func(*Call, []any) (any, error) {
		if matcher == nil {
			return Undefined, nil
		}
		following, err := matcher.next(m)
		if err != nil || following == nil {
			return Undefined, err
		}
		return fnMatchArg(s, following, matcher), nil
	}}
	return jsonvalue.ObjectOf("match", m.text, "start", float64(fnUTF16Index(s, m.start)),
		"end", float64(fnUTF16Index(s, m.end)), "groups", m.groups, "next", next)
}

// fnSubstitute fills a replacement string as jsonata-js does: $$ is a
// dollar, $0 the match, $n the nth group (as many digits as the group
// count has, fewer when that names no group; an unmatched group is
// empty), and a $ before anything else stays.
func fnSubstitute(replacement string, m *fnMatch) string {
	r := utf16.Encode([]rune(replacement)) // positions count as in JavaScript
	groups := len(m.groups)
	var out []uint16
	text := func(s string) { out = append(out, utf16.Encode([]rune(s))...) }
	position := 0
	for position < len(r) {
		dollar := fnIndexUnit(r, '$', position)
		if dollar < 0 {
			break
		}
		out = append(out, r[position:dollar]...)
		position = dollar + 1
		if position >= len(r) {
			out = append(out, '$')
			break
		}
		switch r[position] {
		case '$':
			out = append(out, '$')
			position++
			continue
		case '0':
			text(m.text)
			position++
			continue
		}
		maxDigits := 1
		if groups > 0 {
			maxDigits = int(math.Floor(math.Log(float64(groups))*math.Log10E)) + 1
		}
		parseDigits := func(n int) float64 { // parseInt of the next n code units
			return js.ParseDecimalInt(string(utf16.Decode(r[position:min(position+n, len(r))])))
		}
		index := parseDigits(maxDigits)
		if maxDigits > 1 && index > float64(groups) {
			index = parseDigits(maxDigits - 1)
		}
		if index != index {
			out = append(out, '$')
			continue
		}
		if groups > 0 {
			if i := int(index) - 1; index == math.Trunc(index) && i >= 0 && i < groups {
				if g, ok := m.groups[i].(string); ok {
					text(g)
				}
			}
		}
		position += len(js.NumberToString(index))
	}
	if position < len(r) {
		out = append(out, r[position:]...)
	}
	return string(utf16.Decode(out))
}

func fnIndexUnit(r []uint16, u uint16, from int) int {
	for i := from; i < len(r); i++ {
		if r[i] == u {
			return i
		}
	}
	return -1
}
