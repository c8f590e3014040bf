package jsonata

import (
	"github.com/sfnapprovals/approvals/jsonata/internal/js"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// matchRegex calls a regex as a function, as jsonata-js allows: the first
// match in the string at or after the UTF-16 offset given as the second
// argument, as {match, start, end, groups, next}, or undefined.
func (s *state) matchRegex(re *Regex, args []any) (any, error) {
	var str string
	if len(args) > 0 {
		str = jsText(args[0])
	}
	from := 0
	if len(args) > 1 {
		if f, ok := args[1].(float64); ok && f > 0 {
			from = byteOffset(str, int(f))
		}
	}
	return s.matchFrom(re, str, from, re.pos)
}

func (s *state) matchFrom(re *Regex, str string, from, pos int) (any, error) {
	for _, m := range re.Re.FindAllStringSubmatchIndex(str, -1) {
		if m[0] < from {
			continue
		}
		groups := make([]any, 0, len(m)/2-1)
		for g := 2; g < len(m); g += 2 {
			if m[g] < 0 {
				groups = append(groups, Undefined)
			} else {
				groups = append(groups, str[m[g]:m[g+1]])
			}
		}
		o := jsonvalue.NewObject(5)
		o.Set("match", str[m[0]:m[1]])
		o.Set("start", float64(js.Length(str[:m[0]])))
		o.Set("end", float64(js.Length(str[:m[1]])))
		o.Set("groups", groups)
		o.Set("next", &matchNext{re: re, str: str, from: m[1], pos: pos})
		return o, nil
	}
	return Undefined, nil
}

// nextMatch is the next() of a match object.
func (s *state) nextMatch(n *matchNext) (any, error) {
	if n.from >= len(n.str) {
		return Undefined, nil
	}
	next, err := s.matchFrom(n.re, n.str, n.from, n.pos)
	if err != nil {
		return nil, err
	}
	if o, ok := next.(*jsonvalue.Object); ok {
		if m, _ := o.Get("match"); m == "" {
			return nil, errAt("D1004", n.pos, inserts{"value": n.re.Source})
		}
	}
	return next, nil
}

// byteOffset converts a UTF-16 offset into s to a byte offset.
func byteOffset(s string, units int) int {
	n := 0
	for i, r := range s {
		if n >= units {
			return i
		}
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return len(s)
}
