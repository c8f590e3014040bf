package jsonata

// A path that binds variables (@$v, #$i) or has parent references (%)
// carries a stream of tuples instead of values: each tuple holds the
// value ("@") with the bindings made on the way to it.

type tuple map[string]any

// tupleStream is a sequence of tuples, the result of a path step that is
// part of an enclosing tuple path.
type tupleStream []tuple

func (t tuple) clone() tuple {
	c := make(tuple, len(t)+2)
	for k, v := range t {
		c[k] = v
	}
	return c
}

// tupleFrame binds a tuple's entries in a new frame.
func tupleFrame(env *frame, t tuple) *frame {
	f := &frame{parent: env, names: make([]string, 0, len(t)), vals: make([]any, 0, len(t))}
	for k, v := range t {
		f.names = append(f.names, k)
		f.vals = append(f.vals, v)
	}
	return f
}

// evalTupleStep evaluates a step of a tuple path. Before the first tuple
// step (started false) the tuples are made from the input values.
func (s *state) evalTupleStep(step *node, inputVal any, input []any, bindings []tuple, started bool, env *frame) ([]tuple, error) {
	if step.typ == nSort {
		var result []tuple
		if started {
			sorted, err := s.sortValues(step, tupleStream(bindings), env)
			if err != nil {
				return nil, err
			}
			result = asTuples(sorted)
		} else {
			sorted, err := s.sortValues(step, inputVal, env)
			if err != nil {
				return nil, err
			}
			xs, _ := items(sorted)
			for i, v := range xs {
				t := tuple{"@": v}
				if step.hasIndex {
					t[step.index] = float64(i)
				}
				result = append(result, t)
			}
		}
		return s.tupleStages(step.stages, result, env)
	}
	if !started {
		bindings = make([]tuple, len(input))
		for i, v := range input {
			bindings[i] = tuple{"@": v}
		}
	}
	result := make([]tuple, 0, len(bindings))
	for _, tb := range bindings {
		res, err := s.eval(step, tb["@"], tupleFrame(env, tb))
		if err != nil {
			return nil, err
		}
		if IsUndefined(res) {
			continue
		}
		if ts, ok := res.(tupleStream); ok {
			for _, r := range ts {
				t := tb.clone()
				for k, v := range r {
					t[k] = v
				}
				result = append(result, t)
			}
			continue
		}
		vals, ok := items(res)
		if !ok {
			vals = []any{res}
		}
		for i, v := range vals {
			t := tb.clone()
			if step.hasFocus {
				t[step.focus] = v
				t["@"] = tb["@"]
			} else {
				t["@"] = v
			}
			if step.hasIndex {
				t[step.index] = float64(i)
			}
			if step.ancestor != nil {
				t[step.ancestor.label] = tb["@"]
			}
			result = append(result, t)
		}
	}
	return s.tupleStages(step.stages, result, env)
}

func asTuples(v any) []tuple {
	switch x := v.(type) {
	case tupleStream:
		return x
	case []tuple:
		return x
	}
	return nil
}

// tupleStages applies a step's filters and index bindings to a tuple
// stream.
func (s *state) tupleStages(stages []*stage, ts []tuple, env *frame) ([]tuple, error) {
	for _, st := range stages {
		if st.isIndex {
			for i, t := range ts {
				t[st.index] = float64(i)
			}
			continue
		}
		r, err := s.filter(st.expr, tupleStream(ts), env)
		if err != nil {
			return nil, err
		}
		ts = asTuples(r)
	}
	return ts, nil
}

// applyStages applies a step's filters to a non-tuple sequence.
func (s *state) applyStages(stages []*stage, v any, env *frame) (any, error) {
	for _, st := range stages {
		if st.isIndex {
			continue
		}
		var err error
		if v, err = s.filter(st.expr, v, env); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// streamMembers is what a grouping or an order-by step works through: the
// tuples of a tuple stream (isTuple), else the items of a sequence or an
// array.
func streamMembers(input any) (members []any, ts tupleStream, isTuple bool) {
	ts, isTuple = input.(tupleStream)
	if !isTuple {
		members, _ = items(input)
		return members, nil, false
	}
	members = make([]any, len(ts))
	for i, t := range ts {
		members[i] = t
	}
	return members, ts, true
}
