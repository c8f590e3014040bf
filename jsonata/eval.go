package jsonata

import (
	"context"
	"time"
)

// state is one evaluation: the flags of its sequences, its clock and
// random source, its library, how deep it has recursed and what can stop
// it. Nothing in it is shared with other evaluations, except the library,
// which is only read.
type state struct {
	flags    map[*any]seqFlags
	sites    map[any]callSite
	lib      map[string]any
	depth    int
	maxDepth int
	clock    time.Time
	rand     func() float64

	ctx   context.Context // nil when nothing can stop the evaluation
	done  <-chan struct{} // ctx.Done(); nil when nothing can stop it
	steps uint            // evaluation steps taken, to space out the checks of done
	work  uint64          // units of work counted by tick, likewise

	budget budget // what the evaluation may still allocate
}

var _ callEnv = (*state)(nil)

func (s *state) now() time.Time  { return s.clock }
func (s *state) random() float64 { return s.rand() }

// frame is a scope of variable bindings.
type frame struct {
	parent *frame
	names  []string
	vals   []any
}

func newFrame(parent *frame) *frame { return &frame{parent: parent} }

func (f *frame) bind(name string, v any) {
	for i, n := range f.names {
		if n == name {
			f.vals[i] = v
			return
		}
	}
	f.names = append(f.names, name)
	f.vals = append(f.vals, v)
}

// lookup finds name in the frames, then in the library.
func (s *state) lookup(f *frame, name string) any {
	for ; f != nil; f = f.parent {
		for i := len(f.names) - 1; i >= 0; i-- {
			if f.names[i] == name {
				return f.vals[i]
			}
		}
	}
	if v, ok := s.lib[name]; ok {
		return v
	}
	return Undefined
}

// eval evaluates n with input as the focus.
func (s *state) eval(n *node, input any, env *frame) (any, error) {
	if s.depth >= s.maxDepth {
		return nil, errAt("U1001", n.pos, nil)
	}
	if s.done != nil {
		if err := s.stopped(); err != nil {
			return nil, err
		}
	}
	s.depth++
	r, err := s.evalNode(n, input, env)
	s.depth--
	if err != nil {
		return nil, err
	}
	for _, p := range n.predicate {
		if r, err = s.filter(p.expr, r, env); err != nil {
			return nil, err
		}
	}
	if n.typ != nPath && n.group != nil {
		if r, err = s.groupBy(n.group, r, env); err != nil {
			return nil, err
		}
	}
	return s.finish(n, r), nil
}

func (s *state) evalNode(n *node, input any, env *frame) (any, error) {
	switch n.typ {
	case nPath:
		return s.evalPath(n, input, env)
	case nBinary:
		return s.evalBinary(n, input, env)
	case nUnary:
		return s.evalNegation(n, input, env)
	case nArray:
		return s.evalArray(n, input, env)
	case nObject:
		return s.groupBy(&group{pairs: n.pairs, pos: n.pos}, input, env)
	case nName:
		return s.lookupField(input, n.op), nil
	case nString, nNumber, nValue:
		return n.value, nil
	case nWildcard:
		return s.evalWildcard(input), nil
	case nDescendant:
		return s.evalDescendants(input), nil
	case nParent:
		return s.lookup(env, n.slot.label), nil
	case nCondition:
		c, err := s.eval(n.cond, input, env)
		if err != nil {
			return nil, err
		}
		b, err := truthy(c)
		if err != nil {
			return nil, err
		}
		if b {
			return s.eval(n.then, input, env)
		}
		if n.els != nil {
			return s.eval(n.els, input, env)
		}
		return Undefined, nil
	case nBlock:
		f := newFrame(env)
		var r any = Undefined
		for _, e := range n.items {
			var err error
			if r, err = s.eval(e, input, f); err != nil {
				return nil, err
			}
		}
		return r, nil
	case nBind:
		v, err := s.eval(n.rhs, input, env)
		if err != nil {
			return nil, err
		}
		env.bind(n.lhs.op, v)
		return v, nil
	case nRegex:
		return n.regex, nil
	case nFunction:
		return s.evalCall(n, input, env, nil)
	case nVariable:
		if n.op == "" {
			return s.unwrapOuter(input), nil
		}
		return s.lookup(env, n.op), nil
	case nLambda:
		return &lambda{node: n, input: input, env: env, params: paramNames(n.args), sig: n.sig, thunk: n.thunk}, nil
	case nPartial:
		return s.evalPartial(n, input, env)
	case nApply:
		return s.evalApply(n, input, env)
	case nTransform:
		return &transformer{node: n, env: env}, nil
	}
	return Undefined, nil
}

func paramNames(args []*node) []string {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.op
	}
	return names
}
