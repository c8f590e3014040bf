package lang

import (
	"github.com/sfnapprovals/approvals/workflow/sfnlocal/internal/jsonvalue"
)

const transformSignature = "<(oa):o>"

// transform applies |pattern|update, delete| to a copy of its argument:
// every value the pattern selects in the copy gets the update's members
// and loses the members named by delete.
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
