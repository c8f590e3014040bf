package jsonata

import (
	"github.com/sfnapprovals/approvals/jsonata/internal/js"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// fnKeys is $keys(arg): the keys of an object, or the distinct keys of
// the objects in an array, ordered as a JavaScript object orders them.
func fnKeys(c *Call, args []any) (any, error) {
	var keys []any
	seen := map[string]bool{}
	var collect func(v any, depth int)
	collect = func(v any, depth int) {
		checkValueDepth(depth)
		switch v := v.(type) {
		case *jsonvalue.Object:
			for _, k := range v.Keys() {
				if !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			}
		case []any:
			for _, x := range v {
				collect(x, depth+1)
			}
		}
	}
	collect(args[0], 0)
	if _, ok := args[0].([]any); ok && len(keys) > 1 {
		// jsonata-js merges an array's keys in an object: integer-like first
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = k.(string)
		}
		for i, k := range js.KeyOrder(names) {
			keys[i] = k
		}
	}
	return fnSequence(c, keys), nil
}

// fnLookup is $lookup(arg, key): the value of key in an object, or the
// values of key in the objects of an array, arrays flattened one level.
func fnLookup(c *Call, args []any) (any, error) {
	key := jsText(args[1]) // an undefined key is the property "undefined"
	return fnLookupIn(c, args[0], key, 0), nil
}

func fnLookupIn(c *Call, v any, key string, depth int) any {
	checkValueDepth(depth)
	switch v := v.(type) {
	case *jsonvalue.Object:
		if x, ok := v.Get(key); ok {
			return x
		}
	case []any:
		var out []any
		for _, item := range v {
			switch x := fnLookupIn(c, item, key, depth+1).(type) {
			case undefined:
			case []any:
				out = append(out, x...)
			default:
				out = append(out, x)
			}
		}
		return fnSequence(c, out)
	}
	return Undefined
}

// fnSpread is $spread(arg): an object as an array of one-member objects;
// the objects of an array likewise, all in one array. Other values are
// returned as they are.
func fnSpread(c *Call, args []any) (any, error) { return fnSpreadAt(c, args[0], 0), nil }

func fnSpreadAt(c *Call, arg any, depth int) any {
	checkValueDepth(depth)
	switch v := arg.(type) {
	case *jsonvalue.Object:
		return fnSequence(c, fnSpreadObject(v))
	case []any:
		if len(v) == 0 {
			return Undefined
		}
		out := []any{}
		for _, item := range v {
			switch item := item.(type) {
			case *jsonvalue.Object:
				out = append(out, fnSpreadObject(item)...)
			case []any:
				out = append(out, fnAsArrayOrNone(fnSpreadAt(c, item, depth+1))...)
			default:
				out = append(out, item)
			}
		}
		return out
	}
	return arg
}

func fnSpreadObject(o *jsonvalue.Object) []any {
	out := make([]any, 0, o.Len())
	o.Range(func(k string, v any) bool {
		out = append(out, jsonvalue.ObjectOf(k, v))
		return true
	})
	return out
}

// fnAsArrayOrNone is v as a slice: nothing for Undefined, an array's
// members, or v alone.
func fnAsArrayOrNone(v any) []any {
	switch v := v.(type) {
	case undefined:
		return nil
	case []any:
		return v
	}
	return []any{v}
}

// fnMerge is $merge(objects): one object with the members of all, a later
// object's value winning (in the place the key first had).
func fnMerge(_ *Call, args []any) (any, error) {
	a, ok := args[0].([]any)
	if !ok {
		return Undefined, nil
	}
	out := jsonvalue.NewObject(len(a))
	for _, v := range a {
		if o, ok := v.(*jsonvalue.Object); ok {
			o.Range(func(k string, x any) bool {
				out.Set(k, x)
				return true
			})
		}
	}
	return out, nil
}

// fnEach is $each(object, function($value, $key, $object)): the function's
// results, Undefined ones left out.
func fnEach(c *Call, args []any) (any, error) {
	o, ok := args[0].(*jsonvalue.Object)
	if !ok {
		return Undefined, nil
	}
	var out []any
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		res, err := c.Apply(args[1], fnHOFArgs(args[1], v, k, o)...)
		if err != nil {
			return nil, err
		}
		if res != Undefined {
			out = append(out, res)
		}
	}
	return fnSequence(c, out), nil
}

// fnSift is $sift(object, function($value, $key, $object)): the members
// for which the function's result is true; Undefined when none.
func fnSift(c *Call, args []any) (any, error) {
	o, ok := args[0].(*jsonvalue.Object)
	if !ok {
		return Undefined, nil
	}
	if args[1] == Undefined && o.Len() > 0 {
		return nil, fnError(c, "", "Cannot read properties of undefined (reading 'arity')", nil)
	}
	out := jsonvalue.NewObject(o.Len())
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		res, err := c.Apply(args[1], fnHOFArgs(args[1], v, k, o)...)
		if err != nil {
			return nil, err
		}
		keep, err := truthy(res)
		if err != nil {
			return nil, err
		}
		if keep {
			out.Set(k, v)
		}
	}
	if out.Len() == 0 {
		return Undefined, nil
	}
	return out, nil
}
