package jsonpath

import (
	"strconv"
	"strings"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// Get evaluates path against doc. A definite path returns the selected value
// or a *NoMatchError; an indefinite path returns a []any of the matches in
// document order (object members in their order), possibly empty. A malformed
// path is a *SyntaxError.
func Get(doc any, path string) (any, error) {
	p, err := parse(path)
	if err != nil {
		return nil, err
	}
	return eval(p, doc)
}

func eval(p path, doc any) (any, error) {
	nodes := []any{doc}
	if !p.definite() {
		// An indefinite path selects what it finds: missing members on the
		// way select nothing, so "$.items[*]" over {} is [].
		for _, s := range p.segs {
			next := []any{}
			for _, n := range nodes {
				if s.descend {
					next = descend(s, n, doc, next)
				} else {
					next, _ = apply(s, n, doc, next)
				}
			}
			nodes = next
		}
		return nodes, nil
	}
	for i, s := range p.segs {
		next, ok := apply(s, nodes[0], doc, nil)
		if !ok {
			if _, isObj := nodes[0].(*jsonvalue.Object); isObj && s.kind == segName && i < len(p.segs)-1 {
				return nil, &NoMatchError{Path: p.src, Reason: "Missing property in path " + normalized(p.segs[:i+1])}
			}
			return nil, &NoMatchError{Path: p.src, Reason: "No results for path: " + normalized(p.segs)}
		}
		nodes = next
	}
	return nodes[0], nil
}

// definite reports whether the path selects at most one value.
func (p path) definite() bool {
	for _, s := range p.segs {
		if !s.definite() {
			return false
		}
	}
	return true
}

// normalized writes segments as AWS's JSONPath library names a path in its
// errors: $['name'][0].
func normalized(segs []segment) string {
	var b strings.Builder
	b.WriteByte('$')
	for _, s := range segs {
		switch s.kind {
		case segName:
			b.WriteByte('[')
			for i, n := range s.names {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString("'" + n + "'")
			}
			b.WriteByte(']')
		case segIndex:
			b.WriteByte('[')
			for i, n := range s.indexes {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(n))
			}
			b.WriteByte(']')
		default:
			b.WriteString("[*]")
		}
	}
	return b.String()
}

// apply appends what s selects in n to out; ok is false when a name or an
// index selects nothing.
func apply(s segment, n, root any, out []any) (_ []any, ok bool) {
	switch s.kind {
	case segName:
		m, isObj := n.(*jsonvalue.Object)
		if !isObj {
			return out, false
		}
		found := false
		for _, name := range s.names {
			if v, has := m.Get(name); has {
				out, found = append(out, v), true
			}
		}
		return out, found
	case segIndex:
		a, isArr := n.([]any)
		if !isArr {
			return out, false
		}
		found := false
		for _, i := range s.indexes {
			if i < 0 {
				i += len(a)
			}
			if i >= 0 && i < len(a) {
				out, found = append(out, a[i]), true
			}
		}
		return out, found
	case segWildcard:
		return append(out, children(n)...), true
	case segSlice:
		if a, isArr := n.([]any); isArr {
			return appendSlice(s, a, out), true
		}
		return out, true
	case segFilter:
		if m, isObj := n.(*jsonvalue.Object); isObj {
			if s.filter.eval(root, m) {
				out = append(out, m)
			}
			return out, true
		}
		a, _ := n.([]any)
		for _, e := range a {
			if s.filter.eval(root, e) {
				out = append(out, e)
			}
		}
		return out, true
	}
	return out, false
}

// descend applies s to n and to every node below it, in pre-order.
func descend(s segment, n, root any, out []any) []any {
	s.descend = false
	var walk func(any)
	walk = func(n any) {
		out, _ = apply(s, n, root, out)
		for _, c := range children(n) {
			walk(c)
		}
	}
	walk(n)
	return out
}

func children(n any) []any {
	switch v := n.(type) {
	case []any:
		return v
	case *jsonvalue.Object:
		out := make([]any, 0, v.Len())
		v.Range(func(_ string, x any) bool { out = append(out, x); return true })
		return out
	}
	return nil
}

func appendSlice(s segment, a []any, out []any) []any {
	n := len(a)
	bound := func(p *int, def int) int {
		if p == nil {
			return def
		}
		i := *p
		if i < 0 {
			i += n
		}
		return min(max(i, 0), n)
	}
	start, end, step := bound(s.slice[0], 0), bound(s.slice[1], n), 1
	if s.slice[2] != nil {
		step = *s.slice[2]
	}
	for i := start; i < end; i += step {
		out = append(out, a[i])
	}
	return out
}
