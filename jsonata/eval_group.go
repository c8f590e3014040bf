package jsonata

import (
	"github.com/sfnapprovals/approvals/jsonata/internal/js"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

type groupEntry struct {
	data      any
	exprIndex int
}

// groupBy evaluates an object constructor over input: every member is
// grouped under the keys the key expressions give it, then each group's
// value expression is evaluated with the group as the focus. A tuple
// stream's bindings are merged per group.
func (s *state) groupBy(g *group, input any, env *frame) (any, error) {
	if _, ok := input.(tupleStream); !ok {
		if _, ok := items(input); !ok {
			return s.constructObject(g, input, env)
		}
	}
	members, _, reduce := streamMembers(input)
	if len(members) == 0 {
		if reduce {
			// jsonata-js reads '@' of the undefined it puts in the stream
			return nil, &Error{Message: "Cannot read properties of undefined (reading '@')"}
		}
		members = []any{Undefined}
	}
	groups := map[string]*groupEntry{}
	var order []string
	for _, item := range members {
		ctx, e := item, env
		if t, ok := item.(tuple); ok && reduce {
			ctx, e = t["@"], tupleFrame(env, t)
		}
		for i, pair := range g.pairs {
			key, ok, err := s.objectKey(g, pair[0], ctx, e)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			if entry, ok := groups[key]; ok {
				if entry.exprIndex != i {
					return nil, errAt("D1009", g.pos, inserts{"value": key})
				}
				entry.data = appendValues(entry.data, item)
			} else {
				groups[key] = &groupEntry{data: item, exprIndex: i}
				order = append(order, key)
			}
		}
	}
	out := jsonvalue.NewObject(len(order))
	for _, key := range js.KeyOrder(order) {
		entry := groups[key]
		ctx, e := entry.data, env
		if reduce {
			t := reduceTuples(entry.data)
			ctx = t["@"]
			delete(t, "@")
			e = tupleFrame(env, t)
		}
		if err := s.setMember(out, key, g.pairs[entry.exprIndex][1], ctx, e); err != nil {
			return nil, err
		}
	}
	if err := s.chargeItems(out.Len()); err != nil {
		return nil, err
	}
	return out, nil
}

// constructObject is groupBy over a single value: each key expression
// names one member, whose value is evaluated with the same focus.
func (s *state) constructObject(g *group, input any, env *frame) (any, error) {
	keys := make([]string, 0, len(g.pairs))
	index := make([]int, 0, len(g.pairs))
	for i, pair := range g.pairs {
		key, ok, err := s.objectKey(g, pair[0], input, env)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		for _, prev := range keys {
			if prev == key {
				return nil, errAt("D1009", g.pos, inserts{"value": key})
			}
		}
		keys = append(keys, key)
		index = append(index, i)
	}
	ordered := js.KeyOrder(keys)
	out := jsonvalue.NewObject(len(keys))
	for _, key := range ordered {
		i := index[indexOf(keys, key)]
		if err := s.setMember(out, key, g.pairs[i][1], input, env); err != nil {
			return nil, err
		}
	}
	if err := s.chargeItems(out.Len()); err != nil {
		return nil, err
	}
	return out, nil
}

// objectKey evaluates the key expression of one of g's pairs: false when
// it is undefined, error T1003 when it is not a string.
func (s *state) objectKey(g *group, expr *node, focus any, env *frame) (string, bool, error) {
	k, err := s.eval(expr, focus, env)
	if err != nil || IsUndefined(k) {
		return "", false, err
	}
	key, ok := k.(string)
	if !ok {
		return "", false, errAt("T1003", g.pos, inserts{"value": k})
	}
	return key, true, nil
}

// setMember evaluates a pair's value expression and makes it out's member
// key, unless it is undefined.
func (s *state) setMember(out *jsonvalue.Object, key string, expr *node, focus any, env *frame) error {
	v, err := s.eval(expr, focus, env)
	if err != nil {
		return err
	}
	if !IsUndefined(v) {
		out.Set(key, v)
	}
	return nil
}

func indexOf(keys []string, k string) int {
	for i, x := range keys {
		if x == k {
			return i
		}
	}
	return -1
}

// reduceTuples merges the tuples of a group: each binding becomes the
// sequence of its values.
func reduceTuples(data any) tuple {
	if t, ok := data.(tuple); ok {
		// jsonata-js takes a lone tuple itself, so the caller's deleting
		// its '@' shows in every later group holding that tuple
		return t
	}
	xs, _ := data.([]any)
	out := tuple{}
	for i, x := range xs {
		t, _ := x.(tuple)
		for k, v := range t {
			if i == 0 {
				out[k] = v
				continue
			}
			prev, ok := out[k]
			if !ok {
				prev = Undefined
			}
			out[k] = appendValues(prev, v)
		}
	}
	return out
}

// jsReorder moves o's integer-like keys to the front in ascending order,
// as JavaScript orders an object's keys.
func jsReorder(o *jsonvalue.Object) {
	keys := o.Keys()
	ordered := js.KeyOrder(append([]string(nil), keys...))
	same := true
	for i := range keys {
		if keys[i] != ordered[i] {
			same = false
			break
		}
	}
	if same {
		return
	}
	for _, k := range ordered {
		v, _ := o.Get(k)
		o.Delete(k)
		o.Set(k, v)
	}
}
