package jsonata

// binary processes the raw binary operators, most of which become parts
// of paths rather than nodes of their own.
func (pr *processor) binary(e *node) (*node, error) {
	switch e.op {
	case ".":
		return pr.pathStep(e)
	case "[":
		return pr.predicate(e)
	case "{":
		out, err := pr.process(e.lhs)
		if err != nil {
			return nil, err
		}
		if out.group != nil {
			return nil, errAt("S0210", e.pos, nil)
		}
		g := &group{pos: e.pos}
		for _, pair := range e.pairs {
			k, err := pr.process(pair[0])
			if err != nil {
				return nil, err
			}
			v, err := pr.process(pair[1])
			if err != nil {
				return nil, err
			}
			g.pairs = append(g.pairs, [2]*node{k, v})
		}
		out.group = g
		return out, nil
	case "^":
		out, err := pr.process(e.lhs)
		if err != nil {
			return nil, err
		}
		if out.typ != nPath {
			out = &node{typ: nPath, steps: []*node{out}}
		}
		sortStep := &node{typ: nSort, pos: e.pos}
		for _, t := range e.terms {
			x, err := pr.process(t.expr)
			if err != nil {
				return nil, err
			}
			pushAncestry(sortStep, x)
			sortStep.terms = append(sortStep.terms, sortTerm{descending: t.descending, expr: x})
		}
		out.steps = append(out.steps, sortStep)
		if err := pr.resolveAncestry(out); err != nil {
			return nil, err
		}
		return out, nil
	case ":=":
		out := &node{typ: nBind, op: ":=", pos: e.pos}
		var err error
		if out.lhs, err = pr.process(e.lhs); err != nil {
			return nil, err
		}
		if out.rhs, err = pr.process(e.rhs); err != nil {
			return nil, err
		}
		pushAncestry(out, out.rhs)
		return out, nil
	case "@":
		out, err := pr.process(e.lhs)
		if err != nil {
			return nil, err
		}
		step := out
		if out.typ == nPath {
			step = out.steps[len(out.steps)-1]
		}
		if step.stages != nil || step.predicate != nil {
			return nil, errAt("S0215", e.pos, nil)
		}
		if step.typ == nSort {
			return nil, errAt("S0216", e.pos, nil)
		}
		if e.keepArray {
			step.keepArray = true
		}
		step.focus, step.hasFocus = e.rhs.op, true
		step.tuple = true
		return out, nil
	case "#":
		out, err := pr.process(e.lhs)
		if err != nil {
			return nil, err
		}
		step := out
		if out.typ == nPath {
			step = out.steps[len(out.steps)-1]
		} else {
			out = &node{typ: nPath, steps: []*node{out}}
			if step.predicate != nil {
				step.stages, step.predicate = step.predicate, nil
			}
		}
		if step.stages == nil {
			step.index, step.hasIndex = e.rhs.op, true
		} else {
			step.stages = append(step.stages, &stage{isIndex: true, index: e.rhs.op, pos: e.pos})
		}
		step.tuple = true
		return out, nil
	case "~>":
		out := &node{typ: nApply, op: "~>", pos: e.pos}
		var err error
		if out.lhs, err = pr.process(e.lhs); err != nil {
			return nil, err
		}
		if out.rhs, err = pr.process(e.rhs); err != nil {
			return nil, err
		}
		out.keepArray = out.lhs.keepArray || out.rhs.keepArray
		return out, nil
	}
	out := &node{typ: nBinary, op: e.op, pos: e.pos}
	var err error
	if out.lhs, err = pr.process(e.lhs); err != nil {
		return nil, err
	}
	if out.rhs, err = pr.process(e.rhs); err != nil {
		return nil, err
	}
	pushAncestry(out, out.lhs)
	pushAncestry(out, out.rhs)
	return out, nil
}

// pathStep processes lhs.rhs into a path.
func (pr *processor) pathStep(e *node) (*node, error) {
	lstep, err := pr.process(e.lhs)
	if err != nil {
		return nil, err
	}
	out := lstep
	if lstep.typ != nPath {
		out = &node{typ: nPath, steps: []*node{lstep}}
	}
	if lstep.typ == nParent {
		out.seeking = []*slot{lstep.slot}
	}
	rest, err := pr.process(e.rhs)
	if err != nil {
		return nil, err
	}
	if rest.typ == nPath {
		out.steps = append(out.steps, rest.steps...)
	} else {
		if rest.predicate != nil {
			rest.stages, rest.predicate = rest.predicate, nil
		}
		out.steps = append(out.steps, rest)
	}
	for _, s := range out.steps {
		switch s.typ {
		case nNumber, nValue:
			return nil, errAt("S0213", s.pos, inserts{"value": s.value})
		case nString:
			s.typ, s.op = nName, s.value.(string)
		}
	}
	for _, s := range out.steps {
		if s.keepArray {
			out.keepSingletonArray = true
		}
	}
	if first := out.steps[0]; first.typ == nArray {
		first.consArray = true
	}
	if last := out.steps[len(out.steps)-1]; last.typ == nArray {
		last.consArray = true
	}
	if err := pr.resolveAncestry(out); err != nil {
		return nil, err
	}
	return out, nil
}

// predicate processes lhs[rhs]: a stage of the last step of a path, or a
// predicate of any other expression.
func (pr *processor) predicate(e *node) (*node, error) {
	out, err := pr.process(e.lhs)
	if err != nil {
		return nil, err
	}
	step := out
	onPath := out.typ == nPath
	if onPath {
		step = out.steps[len(out.steps)-1]
	}
	if step.group != nil {
		return nil, errAt("S0209", e.pos, nil)
	}
	pred, err := pr.process(e.rhs)
	if err != nil {
		return nil, err
	}
	if pred.seeking != nil {
		for _, s := range pred.seeking {
			if s.level == 1 {
				if _, err := pr.seekParent(step, s); err != nil {
					return nil, err
				}
			} else {
				s.level--
			}
		}
		pushAncestry(step, pred)
	}
	st := &stage{expr: pred, pos: e.pos}
	if onPath {
		step.stages = append(step.stages, st)
	} else {
		step.predicate = append(step.predicate, st)
	}
	return out, nil
}
