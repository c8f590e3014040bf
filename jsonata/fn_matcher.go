package jsonata

import (
	"math"
	"regexp"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// fnMatch is one match of a pattern in a string. start and end are byte
// offsets into the string; groups holds the capture groups, nil for a
// group that took no part.
type fnMatch struct {
	text       string
	start, end int
	groups     []any
	raw        *jsonvalue.Object // what a custom matcher returned
}

// fnMatcher walks the matches of a pattern in a string as jsonata-js's
// $match, $replace, $split and $contains do: a regex, or a function
// returning {match, start, end, groups, next} objects.
type fnMatcher interface {
	first() (*fnMatch, error)
	// next returns the match after prev (the last one found), or nil.
	next(prev *fnMatch) (*fnMatch, error)
}

// fnNewMatcher returns the matcher for pattern (a *Regex or a Function)
// over s.
func fnNewMatcher(c *Call, pattern any, s string) fnMatcher {
	if re, ok := pattern.(*Regex); ok {
		return &fnRegexMatcher{re: re.Re, s: s}
	}
	return &fnFuncMatcher{c: c, fn: pattern, s: s}
}

// fnRegexMatcher is a regex used as JavaScript's global regex: each search
// starts where the last one ended (lastIndex, shared by everything that
// walks this matcher, as the "next" functions of jsonata-js's match
// objects share it), and a search after the first that finds an empty
// match is error D1004, because it would never progress.
type fnRegexMatcher struct {
	re        *regexp.Regexp
	from      *regexp.Regexp // re, searched from the second rune of the text
	s         string
	lastIndex int
}

func (m *fnRegexMatcher) first() (*fnMatch, error) {
	return m.searchFrom(0), nil
}

func (m *fnRegexMatcher) next(*fnMatch) (*fnMatch, error) {
	if m.lastIndex >= len(m.s) {
		return nil, nil
	}
	found := m.searchFrom(m.lastIndex)
	if found != nil && found.start == found.end {
		return nil, &Error{Code: "D1004", Message: "Regular expression matches zero length string"}
	}
	return found, nil
}

// searchFrom searches from byte offset at and moves lastIndex past the
// match. After a failed search JavaScript restarts from 0; here the walk
// ends instead, which differs only for replacement functions that call
// next themselves (where jsonata-js would loop forever).
func (m *fnRegexMatcher) searchFrom(at int) *fnMatch {
	found := m.search(at)
	if found != nil {
		m.lastIndex = found.end
	} else {
		m.lastIndex = len(m.s)
	}
	return found
}

// search finds the first match starting at or after byte offset at. RE2
// cannot start a search part-way through a text, so from at > 0 the
// search runs over the text from the rune before at, with that rune
// consumed by a prefix: anchors and word boundaries still see it.
func (m *fnRegexMatcher) search(at int) *fnMatch {
	if m.from == nil && at > 0 {
		var err error
		if m.from, err = regexp.Compile(`\A(?s:.)(?s:.*?)(` + m.re.String() + `)`); err != nil {
			m.from = m.re // cannot happen for a regex that compiled; search the rest alone
		}
	}
	var loc []int
	offset := 0
	switch {
	case at == 0:
		loc = m.re.FindStringSubmatchIndex(m.s)
	case m.from == m.re:
		offset = at
		loc = m.re.FindStringSubmatchIndex(m.s[at:])
	default:
		_, width := utf8.DecodeLastRuneInString(m.s[:at])
		offset = at - width
		if loc = m.from.FindStringSubmatchIndex(m.s[offset:]); loc != nil {
			loc = loc[2:]
		}
	}
	if loc == nil {
		return nil
	}
	found := &fnMatch{start: loc[0] + offset, end: loc[1] + offset}
	found.text = m.s[found.start:found.end]
	for g := 2; g+1 < len(loc); g += 2 {
		if loc[g] < 0 {
			found.groups = append(found.groups, nil)
		} else {
			found.groups = append(found.groups, m.s[loc[g]+offset:loc[g+1]+offset])
		}
	}
	if found.groups == nil {
		found.groups = []any{}
	}
	return found
}

// fnFuncMatcher is a function used as a pattern: called with the string,
// it returns a match object whose "next" function returns the next one.
type fnFuncMatcher struct {
	c  *Call
	fn any
	s  string
}

func (m *fnFuncMatcher) first() (*fnMatch, error) {
	return m.call(m.fn, m.s)
}

func (m *fnFuncMatcher) next(prev *fnMatch) (*fnMatch, error) {
	next := fnGet(prev.raw, "next")
	if !isFunction(next) {
		return nil, &Error{Code: "T1006", Message: "Attempted to invoke a non-function"}
	}
	return m.call(next)
}

func (m *fnFuncMatcher) call(fn any, args ...any) (*fnMatch, error) {
	res, err := m.c.Apply(fn, args...)
	if err != nil || res == Undefined {
		return nil, err
	}
	o, ok := res.(*jsonvalue.Object)
	if !ok {
		if !fnTruthy(res) {
			return nil, nil
		}
		return nil, fnError(m.c, "T1010", "The matcher function argument passed to function "+js.Quote(m.c.Name)+" does not return the correct object structure", res)
	}
	start, hasStart := o.Get("start")
	groups, hasGroups := o.Get("groups")
	next, _ := o.Get("next")
	_, startNum := start.(float64)
	_, groupsArr := groups.([]any)
	if !(hasStart && startNum || hasGroups && groupsArr || isFunction(next)) {
		return nil, fnError(m.c, "T1010", "The matcher function argument passed to function "+js.Quote(m.c.Name)+" does not return the correct object structure", res)
	}
	found := &fnMatch{raw: o}
	found.text, _ = fnGet(o, "match").(string)
	found.start = fnByteOffset(m.s, fnGet(o, "start"))
	found.end = fnByteOffset(m.s, fnGet(o, "end"))
	found.groups, _ = groups.([]any)
	return found, nil
}

func fnGet(o *jsonvalue.Object, key string) any {
	if v, ok := o.Get(key); ok {
		return v
	}
	return Undefined
}

// fnByteOffset converts a UTF-16 index (a custom matcher's start or end)
// into a byte offset into s, clamped to the string.
func fnByteOffset(s string, index any) int {
	f, ok := index.(float64)
	if !ok || f != f || f <= 0 {
		return 0
	}
	units := 0
	for i, r := range s {
		if float64(units) >= math.Trunc(f) {
			return i
		}
		units += utf16.RuneLen(r)
	}
	return len(s)
}

// fnUTF16Index is the UTF-16 index of byte offset i in s, as JavaScript
// reports match positions.
func fnUTF16Index(s string, i int) int {
	return js.Length(s[:i])
}
