package jsonpath

import (
	"fmt"
	"slices"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// Set returns a copy of doc with value placed at path, a Reference Path, as
// ResultPath does: "$" replaces the whole document and missing objects on
// the way are created. A key that exists keeps its position and a new key
// goes last, as on AWS. doc is not modified; the result shares the
// subtrees it does not change. A path that crosses a value that is not an object (or
// an array index out of range) is a *ResultPathError; a path that is not a
// Reference Path is a *SyntaxError.
func Set(doc any, path string, value any) (any, error) {
	p, err := parse(path)
	if err != nil {
		return nil, err
	}
	if !p.reference() {
		return nil, &SyntaxError{Path: path, Msg: "not a reference path"}
	}
	return setIn(doc, p.segs, value, path)
}

func setIn(n any, segs []segment, value any, src string) (any, error) {
	if len(segs) == 0 {
		return value, nil
	}
	s := segs[0]
	switch s.kind {
	case segName:
		m, ok := n.(*jsonvalue.Object)
		if !ok {
			return nil, &ResultPathError{Path: src, Msg: fmt.Sprintf("cannot set %q on a %s", s.names[0], kind(n))}
		}
		child, ok := m.Get(s.names[0])
		if !ok && len(segs) > 1 {
			child = jsonvalue.NewObject(1)
		}
		v, err := setIn(child, segs[1:], value, src)
		if err != nil {
			return nil, err
		}
		out := m.Clone()
		out.Set(s.names[0], v) // in place when the key exists, appended when new
		return out, nil
	default:
		a, ok := n.([]any)
		i := s.indexes[0]
		if !ok || i >= len(a) {
			return nil, &ResultPathError{Path: src, Msg: fmt.Sprintf("cannot set index %d on a %s", i, kind(n))}
		}
		v, err := setIn(a[i], segs[1:], value, src)
		if err != nil {
			return nil, err
		}
		out := slices.Clone(a)
		out[i] = v
		return out, nil
	}
}

func kind(v any) string {
	switch x := v.(type) {
	case *jsonvalue.Object:
		return "object"
	case []any:
		return fmt.Sprintf("array of length %d", len(x))
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}
