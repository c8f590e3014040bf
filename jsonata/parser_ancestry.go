package jsonata

// Parent references (%) are resolved at parse time: each % is a slot that
// climbs the steps before it until it reaches the step whose input is the
// parent; that step then records the parent under the slot's label in the
// tuple stream the evaluator builds.

// pushAncestry passes the unresolved parent slots of value up to result.
func pushAncestry(result, value *node) {
	if value.seeking == nil && value.typ != nParent {
		return
	}
	slots := append([]*slot(nil), value.seeking...)
	if value.typ == nParent {
		slots = append(slots, value.slot)
	}
	result.seeking = append(result.seeking, slots...)
}

// resolveAncestry climbs the steps of path for the slots its last step is
// seeking; slots that climb past the first step are left to the path.
func (pr *processor) resolveAncestry(path *node) error {
	last := path.steps[len(path.steps)-1]
	slots := append([]*slot(nil), last.seeking...)
	if last.typ == nParent {
		slots = append(slots, last.slot)
	}
	for _, s := range slots {
		index := len(path.steps) - 2
		for s.level > 0 {
			if index < 0 {
				path.seeking = append(path.seeking, s)
				break
			}
			step := path.steps[index]
			index--
			for index >= 0 && step.hasFocus && path.steps[index].hasFocus {
				step = path.steps[index]
				index--
			}
			var err error
			if s, err = pr.seekParent(step, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// seekParent moves slot up through node, marking the step it lands on.
func (pr *processor) seekParent(n *node, s *slot) (*slot, error) {
	switch n.typ {
	case nName, nWildcard:
		s.level--
		if s.level == 0 {
			if n.ancestor != nil {
				pr.ancestry[s.index].slot.label = n.ancestor.label
			}
			n.ancestor = s
			n.tuple = true
		}
	case nParent:
		s.level++
	case nBlock:
		if len(n.items) > 0 {
			n.tuple = true
			return pr.seekParent(n.items[len(n.items)-1], s)
		}
	case nPath:
		n.tuple = true
		index := len(n.steps) - 1
		var err error
		if s, err = pr.seekParent(n.steps[index], s); err != nil {
			return nil, err
		}
		index--
		for s.level > 0 && index >= 0 {
			if s, err = pr.seekParent(n.steps[index], s); err != nil {
				return nil, err
			}
			index--
		}
	default:
		return nil, errAt("S0217", n.pos, inserts{"token": typeName(n)})
	}
	return s, nil
}
