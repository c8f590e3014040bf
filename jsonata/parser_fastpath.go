package jsonata

// markSimpleFields marks the paths that are one plain field name, which
// the evaluator looks up without building sequences.
func markSimpleFields(n *node, seen map[*node]bool) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	if n.typ == nPath && len(n.steps) == 1 && !n.keepSingletonArray && !n.tuple && n.group == nil && !n.keepArray {
		st := n.steps[0]
		n.simpleField = st.typ == nName && st.stages == nil && st.predicate == nil && st.group == nil &&
			!st.keepArray && !st.tuple && !st.hasFocus && !st.hasIndex && st.ancestor == nil
	}
	for _, c := range []*node{n.lhs, n.rhs, n.proc, n.body, n.cond, n.then, n.els, n.update, n.del} {
		markSimpleFields(c, seen)
	}
	for _, list := range [][]*node{n.items, n.steps, n.args} {
		for _, c := range list {
			markSimpleFields(c, seen)
		}
	}
	for _, p := range n.pairs {
		markSimpleFields(p[0], seen)
		markSimpleFields(p[1], seen)
	}
	for _, t := range n.terms {
		markSimpleFields(t.expr, seen)
	}
	for _, st := range append(append([]*stage(nil), n.predicate...), n.stages...) {
		markSimpleFields(st.expr, seen)
	}
	if n.group != nil {
		for _, p := range n.group.pairs {
			markSimpleFields(p[0], seen)
			markSimpleFields(p[1], seen)
		}
	}
}
