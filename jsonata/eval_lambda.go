package jsonata

// lambda is a function defined in the expression, a partial application,
// or a tail call waiting to be made (thunk).
type lambda struct {
	node   *node // the lambda (its body), or for a thunk the tail call
	input  any   // the focus where it was defined
	env    *frame
	params []string
	sig    *signature
	thunk  bool

	// A partial application of a built-in: the built-in, the arguments
	// given (placeholder where missing) and the parameter slots.
	native *Builtin
	bound  []any
}

// Arity is the number of parameters.
func (l *lambda) Arity() int { return len(l.params) }

// placeholder marks a ? argument of a partial application.
type placeholder struct{}

// transformer is the function a transform expression |pattern|update|
// evaluates to.
type transformer struct {
	node *node
	env  *frame
}

// Arity is 1: the object to transform.
func (*transformer) Arity() int { return 1 }

// composition is f ~> g with two functions: a function applying f, then g.
type composition struct {
	f, g any
}

// Arity is 1.
func (*composition) Arity() int { return 1 }

// matchNext is the next() of a regex match object: the following match.
type matchNext struct {
	re   *Regex
	str  string
	from int // byte offset to continue from
	pos  int
}

// Arity is 0.
func (*matchNext) Arity() int { return 0 }

// evalPartial partially applies a function: ? arguments stay parameters of
// the function it returns.
func (s *state) evalPartial(n *node, input any, env *frame) (any, error) {
	args := make([]any, len(n.args))
	for i, a := range n.args {
		if a.typ == nPlaceholder {
			args[i] = placeholder{}
			continue
		}
		v, err := s.eval(a, input, env)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	proc, err := s.eval(n.proc, input, env)
	if err != nil {
		return nil, err
	}
	if IsUndefined(proc) && n.proc.typ == nPath && n.proc.steps[0].typ == nName && !IsUndefined(s.lookup(env, n.proc.steps[0].op)) {
		return nil, errAt("T1007", n.pos, inserts{"token": n.proc.steps[0].op})
	}
	switch f := proc.(type) {
	case *lambda:
		if f.native != nil {
			return partialNative(f.native, fillBound(f, args)), nil
		}
		frame := newFrame(f.env)
		var free []string
		for i, p := range f.params {
			var a any = Undefined
			if i < len(args) {
				a = args[i]
			}
			if _, ok := a.(placeholder); ok {
				free = append(free, p)
			} else {
				frame.bind(p, a)
			}
		}
		return &lambda{node: f.node, input: f.input, env: frame, params: free}, nil
	case *Builtin:
		return partialNative(f, args), nil
	}
	return nil, errAt("T1008", n.pos, inserts{"token": procName(n)})
}

// partialNative binds args to a built-in's parameters; the placeholders
// become the parameters of the result.
func partialNative(b *Builtin, args []any) *lambda {
	n := signatureArity(b.Signature)
	if n < len(args) {
		n = len(args)
	}
	bound := make([]any, n)
	var free []string
	for i := range bound {
		bound[i] = Undefined
		if i < len(args) {
			bound[i] = args[i]
		}
		if _, ok := bound[i].(placeholder); ok {
			free = append(free, itoa(i))
		}
	}
	return &lambda{native: b, bound: bound, params: free}
}

// fillBound fills the free slots of a partial built-in with args, keeping
// placeholders among them free.
func fillBound(l *lambda, args []any) []any {
	out := append([]any(nil), l.bound...)
	k := 0
	for i, v := range out {
		if _, ok := v.(placeholder); ok {
			if k < len(args) {
				out[i] = args[k]
			} else {
				out[i] = Undefined
			}
			k++
		}
	}
	return out
}
