package jsonata

import (
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

const transformSignature = "<(oa):o>"

// transform applies |pattern|update, delete| to a copy of its argument:
// every value the pattern selects in the copy gets the update's members
// and loses the members named by delete (an array, its members at the
// names that are indexes).
//
// The copy is what the $clone in scope returns, as in jsonata-js, but
// the updates go to a private copy of that, so that a $clone bound to a
// function that returns its argument (or any value the expression was
// given) cannot make the transform change the evaluation's input or
// bindings. The standard $clone already returns a fresh copy.
func (s *state) transform(t *transformer, args []any) (any, error) {
	sig, err := cachedSignature(transformSignature)
	if err != nil {
		return nil, err
	}
	if args, err = sig.validate(args, Undefined); err != nil {
		return nil, err
	}
	obj := args[0]
	if IsUndefined(obj) {
		return Undefined, nil
	}
	cloneFn := s.lookup(t.env, "clone")
	if !isFunction(cloneFn) {
		return nil, errAt("T2013", t.node.pos, nil)
	}
	result, err := s.applyFn(cloneFn, []any{obj}, nil)
	if err != nil {
		return nil, err
	}
	if !isStandardClone(cloneFn) {
		s.startWalk()
		result = s.privateCopy(result, map[*jsonvalue.Object]*jsonvalue.Object{}, 0)
		if s.budget.items < 0 {
			return nil, errArrayLength()
		}
	}
	matches, err := s.eval(t.node.lhs, result, t.env)
	if err != nil {
		return nil, err
	}
	if IsUndefined(matches) {
		return result, nil
	}
	ms, ok := matches.([]any)
	if !ok {
		ms = []any{matches}
	}
	nested := false // an update set an array or object, which may hold its target
	for _, m := range ms {
		update, err := s.eval(t.node.update, m, t.env)
		if err != nil {
			return nil, err
		}
		if !IsUndefined(update) {
			u, ok := update.(*jsonvalue.Object)
			if !ok {
				return nil, errAt("T2011", t.node.update.pos, inserts{"value": update})
			}
			switch target := m.(type) {
			case *jsonvalue.Object:
				u.Range(func(k string, v any) bool { target.Set(k, v); return true })
				jsReorder(target)
			case []any:
				if result, err = s.updateArray(result, target, u); err != nil {
					return nil, withPosition(err, t.node.update.pos)
				}
			}
		}
		nested = nested || holdsContainer(update)
		if t.node.del == nil {
			continue
		}
		dels, err := s.eval(t.node.del, m, t.env)
		if err != nil {
			return nil, err
		}
		if IsUndefined(dels) {
			continue
		}
		names, ok := dels.([]any)
		if !ok {
			names = []any{dels}
		}
		for _, d := range names {
			if _, ok := d.(string); !ok {
				return nil, errAt("T2012", t.node.del.pos, inserts{"value": dels})
			}
		}
		switch target := m.(type) {
		case *jsonvalue.Object:
			for _, d := range names {
				target.Delete(d.(string))
			}
		case []any:
			deleteFromArray(target, names)
		}
	}
	if nested && hasCycle(result) {
		// jsonata-js builds the cyclic value and fails when it serialises
		// it; every walk here can rely on values being acyclic instead
		return nil, &Error{Message: errCircular, Position: t.node.pos}
	}
	return result, nil
}

// holdsContainer reports whether an update object sets an array or object.
func holdsContainer(update any) bool {
	u, ok := update.(*jsonvalue.Object)
	if !ok {
		return false
	}
	found := false
	u.Range(func(_ string, v any) bool {
		switch v.(type) {
		case []any, *jsonvalue.Object:
			found = true
		}
		return !found
	})
	return found
}

// privateCopy copies the arrays and objects of v all the way down, arrays
// with their sequence flags. An object reached twice is copied once
// (copies holds what was made), so the copy shares its objects the way v
// does and an update shows wherever jsonata-js would show it. Copies are
// charged to the budget; once it is exhausted the copy stops short and
// the caller fails.
func (s *state) privateCopy(v any, copies map[*jsonvalue.Object]*jsonvalue.Object, depth int) any {
	checkValueDepth(depth)
	if s.budget.items < 0 {
		return nil
	}
	switch x := v.(type) {
	case []any:
		s.budget.items -= len(x)
		out := make([]any, len(x))
		for i, m := range x {
			out[i] = s.privateCopy(m, copies, depth+1)
		}
		if f := s.flagsOf(x); f != 0 {
			return s.mark(out, f)
		}
		return out
	case *jsonvalue.Object:
		if c, ok := copies[x]; ok {
			return c
		}
		s.budget.items -= x.Len()
		out := jsonvalue.NewObject(x.Len())
		copies[x] = out
		x.Range(func(k string, m any) bool {
			out.Set(k, s.privateCopy(m, copies, depth+1))
			return true
		})
		return out
	}
	return v
}
