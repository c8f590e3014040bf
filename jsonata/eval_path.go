package jsonata

import "github.com/sfnapprovals/approvals/jsonata/jsonvalue"

// evalPath evaluates the steps of a path in turn, each over every value
// the previous step produced.
func (s *state) evalPath(n *node, input any, env *frame) (any, error) {
	if n.simpleField {
		if o, ok := input.(*jsonvalue.Object); ok {
			v, found := o.Get(n.steps[0].op)
			if !found {
				return Undefined, nil
			}
			if a, isArray := v.([]any); !isArray || !s.isSeq(a) {
				return v, nil
			}
		}
	}
	// inputVal is the input sequence as a value (for a constructor or
	// order-by as first step), inputSeq its members.
	var inputVal any
	var inputSeq []any
	if a, ok := input.([]any); ok && n.steps[0].typ != nVariable {
		inputVal, inputSeq = a, a
	} else {
		q := newSeq(input)
		inputVal, inputSeq = q, q.items
	}
	var result any = Undefined
	var tuples []tuple
	isTuple, started := false, false
	for i, step := range n.steps {
		if step.tuple {
			isTuple = true
		}
		var err error
		switch {
		case i == 0 && step.consArray:
			ctx := inputVal
			if q, ok := ctx.(*seq); ok {
				ctx = s.mark(q.items, fSeq)
			}
			result, err = s.eval(step, ctx, env)
		case isTuple:
			tuples, err = s.evalTupleStep(step, inputVal, inputSeq, tuples, started, env)
			started = true
		default:
			result, err = s.evalStep(step, inputVal, inputSeq, env, i == len(n.steps)-1)
		}
		if err != nil {
			return nil, err
		}
		if !isTuple {
			xs, ok := items(result)
			if IsUndefined(result) || (ok && len(xs) == 0) {
				break
			}
		}
		if !step.hasFocus && !isTuple {
			inputVal = result
			inputSeq, _ = items(result)
		}
	}
	if isTuple {
		if n.tuple {
			result = tupleStream(tuples)
		} else {
			out := &seq{items: make([]any, 0, len(tuples))}
			for _, t := range tuples {
				out.push(t["@"])
			}
			result = out
		}
	}
	if n.keepSingletonArray {
		switch x := result.(type) {
		case []any:
			f := s.flagsOf(x)
			if f&(fCons|fSeq) == fCons {
				result = &seq{items: []any{x}, keep: true}
			} else if f&fSeq != 0 {
				s.flags[arrayKey(x)] = f | fKeep
			}
		case *seq:
			x.keep = true
		}
	}
	if n.group != nil {
		in := result
		if isTuple {
			in = tupleStream(tuples)
		}
		return s.groupBy(n.group, in, env)
	}
	return result, nil
}

// evalStep evaluates one step over each input value and flattens the
// results into a sequence; at the last step a single array result that is
// not a sequence is kept as it is.
func (s *state) evalStep(step *node, inputVal any, input []any, env *frame, last bool) (any, error) {
	if step.typ == nSort {
		r, err := s.sortValues(step, inputVal, env)
		if err != nil {
			return nil, err
		}
		return s.applyStages(step.stages, r, env)
	}
	out := &seq{items: make([]any, 0, len(input))}
	var first any
	count := 0
	for _, item := range input {
		r, err := s.eval(step, item, env)
		if err != nil {
			return nil, err
		}
		for _, st := range step.stages {
			if r, err = s.filter(st.expr, r, env); err != nil {
				return nil, err
			}
		}
		if IsUndefined(r) {
			continue
		}
		if count == 0 {
			first = r
		}
		count++
		switch x := r.(type) {
		case *seq:
			out.items = append(out.items, x.items...)
		case []any:
			if s.isCons(x) {
				out.push(x)
			} else {
				out.items = append(out.items, x...)
			}
		default:
			out.push(r)
		}
	}
	if last && count == 1 {
		if a, ok := first.([]any); ok && !s.isSeq(a) {
			return a, nil
		}
	}
	if err := s.chargeItems(len(out.items)); err != nil {
		return nil, err
	}
	return out, nil
}

// lookupField is jsonata-js's lookup: the field of an object, or the
// fields of the objects in an array, flattened.
func (s *state) lookupField(input any, key string) any { return s.lookupFieldAt(input, key, 0) }

func (s *state) lookupFieldAt(input any, key string, depth int) any {
	checkValueDepth(depth)
	switch x := input.(type) {
	case *jsonvalue.Object:
		if v, ok := x.Get(key); ok {
			return v
		}
		return Undefined
	case []any:
		out := &seq{}
		for _, item := range x {
			r := s.lookupFieldAt(item, key, depth+1)
			if IsUndefined(r) {
				continue
			}
			if xs, ok := items(r); ok {
				out.items = append(out.items, xs...)
			} else {
				out.push(r)
			}
		}
		return out
	}
	return Undefined
}

// evalWildcard is *: the values of the focus's fields, arrays flattened.
func (s *state) evalWildcard(input any) any {
	input = s.unwrapOuter(input)
	var out []any
	plain := false
	add := func(v any) {
		if a, ok := v.([]any); ok {
			out = flattenDeep(a, out, 0, s.budget.items)
			plain = true
		} else {
			out = append(out, v)
		}
	}
	switch x := input.(type) {
	case *jsonvalue.Object:
		x.Range(func(_ string, v any) bool { add(v); return true })
	case []any:
		for _, v := range x {
			add(v)
		}
	}
	if err := s.chargeItems(len(out)); err != nil {
		panic(overBudget{err})
	}
	if plain {
		return out
	}
	return &seq{items: out}
}

// flattenDeep appends a's members to into, arrays flattened all the way
// down; past limit members it panics with overBudget.
func flattenDeep(a []any, into []any, depth, limit int) []any {
	checkValueDepth(depth)
	checkRoom(len(into), limit)
	for _, v := range a {
		if inner, ok := v.([]any); ok {
			into = flattenDeep(inner, into, depth+1, limit)
		} else {
			into = append(into, v)
		}
	}
	return into
}

// evalDescendants is **: the focus and everything below it that is not an
// array.
func (s *state) evalDescendants(input any) any {
	if IsUndefined(input) {
		return Undefined
	}
	var out []any
	out = descend(input, out, 0, s.budget.items)
	if err := s.chargeItems(len(out)); err != nil {
		panic(overBudget{err})
	}
	if len(out) == 1 {
		return out[0]
	}
	return &seq{items: out}
}

// descend appends v and what is below it to into; past limit members it
// panics with overBudget.
func descend(v any, into []any, depth, limit int) []any {
	checkValueDepth(depth)
	checkRoom(len(into), limit)
	switch x := v.(type) {
	case []any:
		for _, m := range x {
			into = descend(m, into, depth+1, limit)
		}
		return into
	case *jsonvalue.Object:
		into = append(into, v)
		x.Range(func(_ string, m any) bool {
			into = descend(m, into, depth+1, limit)
			return true
		})
		return into
	}
	return append(into, v)
}
