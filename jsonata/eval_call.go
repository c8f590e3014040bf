package jsonata

// procName is the name a call uses for its function: the variable's or
// the step's name, "" for other procedures.
func procName(n *node) string {
	switch n.proc.typ {
	case nVariable:
		return n.proc.op
	case nPath:
		if st := n.proc.steps[0]; st.typ == nName {
			return st.op
		}
	}
	return ""
}

// evalCall evaluates a function call. applyTo, when not nil, is the value
// of the left side of ~>, passed as the first argument.
func (s *state) evalCall(n *node, input any, env *frame, applyTo *any) (any, error) {
	proc, err := s.eval(n.proc, input, env)
	if err != nil {
		return nil, err
	}
	if IsUndefined(proc) && n.proc.typ == nPath && n.proc.steps[0].typ == nName && !IsUndefined(s.lookup(env, n.proc.steps[0].op)) {
		return nil, errAt("T1005", n.pos, inserts{"token": n.proc.steps[0].op})
	}
	args := make([]any, 0, len(n.args)+1)
	if applyTo != nil {
		args = append(args, *applyTo)
	}
	for _, a := range n.args {
		v, err := s.eval(a, input, env)
		if err != nil {
			return nil, err
		}
		args = append(args, v)
	}
	name := procName(n)
	s.noteCall(proc, name, true, n.pos)
	r, err := s.applyFn(proc, args, input)
	if err != nil {
		return nil, withToken(withPosition(err, n.pos), name)
	}
	return r, nil
}

// callSite is what jsonata-js records on a function when an expression
// calls it: errors raised by that function, even in a later call without
// a name, carry this name and position.
type callSite struct {
	token string // "" when the call had no name
	pos   int
}

// noteCall records a call of fn named token at pos; setToken false keeps
// the name recorded before.
func (s *state) noteCall(fn any, token string, setToken bool, pos int) {
	if !hasCallSite(fn) {
		return
	}
	if s.sites == nil {
		s.sites = map[any]callSite{}
	}
	site := s.sites[fn]
	if setToken {
		site.token = token
	}
	site.pos = pos
	s.sites[fn] = site
}

// hasCallSite reports whether fn is a function jsonata-js keeps a record
// of its last call on; other values (arrays among them) cannot be keys.
func hasCallSite(fn any) bool {
	switch fn.(type) {
	case *Builtin, *lambda, *transformer, *composition:
		return true
	}
	return false
}

// siteOf returns the record of fn's last call.
func (s *state) siteOf(fn any) (callSite, bool) {
	if !hasCallSite(fn) {
		return callSite{}, false
	}
	site, ok := s.sites[fn]
	return site, ok
}

// applyFn calls fn with args, making tail calls in a loop so that tail
// recursion does not grow the stack. input is the focus at the call, for
// context arguments.
func (s *state) applyFn(fn any, args []any, input any) (any, error) {
	r, err := s.applyOnce(fn, args, input)
	for err == nil {
		t, ok := r.(*lambda)
		if !ok || !t.thunk {
			break
		}
		call := t.node.body
		next, perr := s.eval(call.proc, t.input, t.env)
		if perr != nil {
			return nil, perr
		}
		isVar := call.proc.typ == nVariable
		s.noteCall(next, call.proc.op, isVar, call.proc.pos)
		nextArgs := make([]any, len(call.args))
		for i, a := range call.args {
			if nextArgs[i], err = s.eval(a, t.input, t.env); err != nil {
				return nil, err
			}
		}
		r, err = s.applyOnce(next, nextArgs, input)
	}
	return r, err
}

// applyOnce validates the arguments against the function's signature and
// calls it once; a lambda's tail call comes back as a thunk. An error
// takes the name and position of the function's last call.
func (s *state) applyOnce(fn any, args []any, input any) (any, error) {
	if c, ok := fn.(*composition); ok {
		return s.applyComposition(c, args, input)
	}
	r, err := s.invoke(fn, args, input)
	if err != nil {
		if site, ok := s.siteOf(fn); ok {
			err = withToken(err, site.token)
			if e, ok := err.(*Error); ok && site.pos != 0 {
				e.Position = site.pos
			}
		}
		return nil, err
	}
	return r, nil
}

func (s *state) invoke(fn any, args []any, input any) (any, error) {
	switch f := fn.(type) {
	case *lambda:
		if f.native != nil {
			return s.callBuiltin(f.native, fillBound(f, args), Undefined)
		}
		if f.sig != nil {
			var err error
			if args, err = f.sig.validate(args, s.unwrapOuter(input)); err != nil {
				return nil, err
			}
		}
		frame := newFrame(f.env)
		for i, p := range f.params {
			var a any = Undefined
			if i < len(args) {
				a = args[i]
			}
			frame.bind(p, a)
		}
		return s.eval(f.node.body, f.input, frame)
	case *Builtin:
		return s.callBuiltin(f, args, input)
	case *Regex:
		return s.matchRegex(f, args)
	case *matchNext:
		return s.nextMatch(f)
	case *transformer:
		return s.transform(f, args)
	}
	return nil, errAt("T1006", 0, nil)
}

// jsonata-js composes f ~> g by evaluating
// function($f, $g) { function($x){ $g($f($x)) } }; errors in the two calls
// carry the positions of $g and of the call of $f in that text.
const (
	composedGPos = 35
	composedFPos = 39
)

// applyComposition applies f ~> g: g of f of the argument. The calls are
// made as the tail call in jsonata-js's composing lambda.
func (s *state) applyComposition(c *composition, args []any, input any) (any, error) {
	var x any = Undefined
	if len(args) > 0 {
		x = args[0]
	}
	s.noteCall(c.g, "g", true, composedGPos)
	s.noteCall(c.f, "f", true, composedFPos)
	mid, err := s.applyFn(c.f, []any{x}, nil)
	if err != nil {
		return nil, withToken(withPosition(err, composedFPos), "f")
	}
	return s.applyFn(c.g, []any{s.tidy(mid)}, input)
}

// callBuiltin validates args against a built-in's signature and calls it.
func (s *state) callBuiltin(b *Builtin, args []any, input any) (any, error) {
	focus := s.unwrapOuter(input)
	if b.Signature != "" {
		sig, err := cachedSignature(b.Signature)
		if err != nil {
			return nil, err
		}
		if args, err = sig.validate(args, focus); err != nil {
			return nil, err
		}
	}
	site := s.sites[b]
	callName := site.token
	if callName == "" {
		callName = b.Name
	}
	r, err := b.Impl(&Call{Name: callName, Position: site.pos, Input: focus, env: s}, args)
	if err != nil {
		return nil, err
	}
	if !passesThrough[b.Name] {
		if err := s.charge(r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// apply is Call.Apply: fn called with args from a built-in, with null
// as the focus, as jsonata-js calls function arguments.
func (s *state) apply(fn any, args []any) (any, error) {
	return s.applyFn(fn, args, nil)
}

// evalApply evaluates lhs ~> rhs: rhs called with lhs as its first
// argument, or the composition of two functions.
func (s *state) evalApply(n *node, input any, env *frame) (any, error) {
	lhs, err := s.eval(n.lhs, input, env)
	if err != nil {
		return nil, err
	}
	if n.rhs.typ == nFunction {
		return s.evalCall(n.rhs, input, env, &lhs)
	}
	fn, err := s.eval(n.rhs, input, env)
	if err != nil {
		return nil, err
	}
	if !isFunction(fn) {
		return nil, errAt("T2006", n.pos, inserts{"value": fn})
	}
	if isFunction(lhs) {
		return &composition{f: lhs, g: fn}, nil
	}
	return s.applyFn(fn, []any{lhs}, nil)
}

// passesThrough names the built-ins whose result is a value they were
// given, already charged to the budget when it was built.
var passesThrough = map[string]bool{"reduce": true, "lookup": true, "single": true}
