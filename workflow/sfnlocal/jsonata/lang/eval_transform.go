package lang

import (
	"github.com/sfnapprovals/approvals/workflow/sfnlocal/internal/jsonvalue"
)

const transformSignature = "<(oa):o>"

// transform applies |pattern|update, delete| to a copy of its argument:
// every value the pattern selects in the copy gets the update's members
// and loses the members named by delete.
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
		result = s.privateCopy(result, map[*jsonvalue.Object]*jsonvalue.Object{})
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
			if target, ok := m.(*jsonvalue.Object); ok {
				u.Range(func(k string, v any) bool { target.Set(k, v); return true })
				jsReorder(target)
			}
		}
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
		if target, ok := m.(*jsonvalue.Object); ok {
			for _, d := range names {
				target.Delete(d.(string))
			}
		}
	}
	return result, nil
}

// privateCopy copies the arrays and objects of v all the way down, arrays
// with their sequence flags. An object reached twice is copied once
// (copies holds what was made), so the copy shares its objects the way v
// does and an update shows wherever jsonata-js would show it.
func (s *state) privateCopy(v any, copies map[*jsonvalue.Object]*jsonvalue.Object) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, m := range x {
			out[i] = s.privateCopy(m, copies)
		}
		if f := s.flagsOf(x); f != 0 {
			return s.mark(out, f)
		}
		return out
	case *jsonvalue.Object:
		if c, ok := copies[x]; ok {
			return c
		}
		out := jsonvalue.NewObject(x.Len())
		copies[x] = out
		x.Range(func(k string, m any) bool {
			out.Set(k, s.privateCopy(m, copies))
			return true
		})
		return out
	}
	return v
}
