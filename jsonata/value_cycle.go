package jsonata

import "github.com/sfnapprovals/approvals/jsonata/jsonvalue"

// errCircular is JavaScript's TypeError (no code) for serialising a
// value that contains itself.
const errCircular = "Converting circular structure to JSON"

// hasCycle reports whether v contains itself: an array or object reached
// again from inside itself. Only a transform can build such a value. The
// walk keeps its own stack, so no depth of v can overflow Go's.
func hasCycle(v any) bool {
	type walk struct {
		id      any
		members []any
		next    int
	}
	const onPath, done = 1, 2
	marks := map[any]uint8{}
	var stack []walk
	enter := func(v any) (cycle bool) {
		id, members := containerOf(v)
		if id == nil || marks[id] == done {
			return false
		}
		if marks[id] == onPath {
			return true
		}
		marks[id] = onPath
		stack = append(stack, walk{id: id, members: members})
		return false
	}
	if enter(v) {
		return true
	}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next == len(top.members) {
			marks[top.id] = done
			stack = stack[:len(stack)-1]
			continue
		}
		m := top.members[top.next]
		top.next++
		if enter(m) {
			return true
		}
	}
	return false
}

// containerOf returns the identity and members of an array or object,
// and a nil identity for other values (and empty arrays, which cannot
// hold themselves).
func containerOf(v any) (any, []any) {
	switch x := v.(type) {
	case []any:
		if k := arrayKey(x); k != nil {
			return k, x
		}
	case *jsonvalue.Object:
		members := make([]any, 0, x.Len())
		x.Range(func(_ string, m any) bool { members = append(members, m); return true })
		return x, members
	}
	return nil, nil
}
