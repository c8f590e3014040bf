package jsonata

import (
	"math"
	"strings"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// fnContains is $contains(str, pattern): a substring or a regex.
func fnContains(c *Call, args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	if token, ok := args[1].(string); ok {
		return strings.Contains(s, token), nil
	}
	m, err := fnNewMatcher(c, args[1], s).first()
	if err != nil {
		return nil, err
	}
	return m != nil, nil
}

// fnUnderLimit reports whether count results are still wanted: limit is
// Undefined (no limit) or a number compared as JavaScript compares.
func fnUnderLimit(count int, limit any) bool {
	l, ok := limit.(float64)
	return !ok || float64(count) < l
}

// fnMatchFn is $match(str, pattern, limit): the matches as objects with
// match, index (in UTF-16 code units, as JavaScript counts) and groups.
func fnMatchFn(c *Call, args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	limit := args[2]
	if l, ok := limit.(float64); ok && l < 0 {
		return nil, fnError(c, "D3040", "Third argument of match function must evaluate to a positive number", l)
	}
	var out []any
	if !fnUnderLimit(0, limit) {
		return fnSequence(c, out), nil
	}
	matcher := fnNewMatcher(c, args[1], s)
	m, err := matcher.first()
	for count := 0; err == nil && m != nil && fnUnderLimit(count, limit); count++ {
		out = append(out, fnMatchObject(s, m))
		m, err = matcher.next(m)
	}
	if err != nil {
		return nil, fnAt(c, err)
	}
	return fnSequence(c, out), nil
}

func fnMatchObject(s string, m *fnMatch) *jsonvalue.Object {
	o := jsonvalue.NewObject(3)
	if m.raw != nil {
		for _, k := range [][2]string{{"match", "match"}, {"index", "start"}, {"groups", "groups"}} {
			if v, ok := m.raw.Get(k[1]); ok && v != Undefined {
				o.Set(k[0], v)
			}
		}
		return o
	}
	o.Set("match", m.text)
	o.Set("index", float64(fnUTF16Index(s, m.start)))
	o.Set("groups", m.groups)
	return o
}

// fnSplit is $split(str, separator, limit).
func fnSplit(c *Call, args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	limit := args[2]
	if l, ok := limit.(float64); ok && l < 0 {
		return nil, fnError(c, "D3020", "Third argument of split function must evaluate to a positive number", l)
	}
	out := []any{}
	if !fnUnderLimit(0, limit) {
		return out, nil
	}
	if sep, ok := args[1].(string); ok {
		return fnSplitString(s, sep, limit), nil
	}
	matcher := fnNewMatcher(c, args[1], s)
	m, err := matcher.first()
	if err != nil {
		return nil, fnAt(c, err)
	}
	if m == nil {
		return []any{s}, nil
	}
	start, count := 0, 0
	for ; m != nil && fnUnderLimit(count, limit); count++ {
		out = append(out, fnCut(s, start, m.start))
		start = m.end
		if m, err = matcher.next(m); err != nil {
			return nil, fnAt(c, err)
		}
	}
	if fnUnderLimit(count, limit) {
		out = append(out, fnCut(s, start, len(s)))
	}
	return out, nil
}

// fnCut is JavaScript's s.substring(from, to) on byte offsets: the
// arguments swap when from is after to.
func fnCut(s string, from, to int) string {
	from, to = min(max(from, 0), len(s)), min(max(to, 0), len(s))
	if from > to {
		from, to = to, from
	}
	return s[from:to]
}

// fnSplitString is JavaScript's s.split(sep, limit): the limit is taken
// as an unsigned 32-bit integer, and an empty separator splits between
// characters.
func fnSplitString(s, sep string, limit any) []any {
	lim := math.MaxUint32
	if l, ok := limit.(float64); ok {
		lim = int(math.Mod(math.Trunc(l), 1<<32))
	}
	parts := strings.Split(s, sep) // "" splits into code points, not UTF-16 units
	out := make([]any, 0, min(len(parts), lim))
	for _, p := range parts {
		if len(out) >= lim {
			break
		}
		out = append(out, p)
	}
	return out
}

// fnAt places an error raised inside a matcher at the call.
func fnAt(c *Call, err error) error {
	if e, ok := err.(*Error); ok && e.Position == 0 {
		e.Position, e.Token = c.Position, c.Name
	}
	return err
}
