package jsonata

// fnHOFArgs are the arguments a higher-order built-in passes to fn: the
// value, then the index or key and the whole array or object only when
// fn declares that many parameters.
func fnHOFArgs(fn any, value, position, whole any) []any {
	arity := fnArity(fn)
	switch {
	case arity >= 3:
		return []any{value, position, whole}
	case arity == 2:
		return []any{value, position}
	}
	return []any{value}
}

// fnArity is the number of parameters fn declares. For a built-in
// jsonata-js counts the parameters of its JavaScript implementation,
// which for $string (whose prettify parameter has a default) is one
// fewer than its signature has: $map(array, $string) passes no index.
func fnArity(fn any) int {
	if b, ok := fn.(*Builtin); ok && b.Name == "string" && b.Signature == "<x-b?:s>" {
		return 1
	}
	if f, ok := fn.(Function); ok {
		return f.Arity()
	}
	return 1
}

// fnEachResult calls fn on each member of a as $map, $filter and $single
// do (value, index, array, as many as fn declares) and hands each member
// and fn's result to visit.
func fnEachResult(c *Call, a []any, fn any, visit func(v, res any) error) error {
	for i, v := range a {
		res, err := c.Apply(fn, fnHOFArgs(fn, v, float64(i), a)...)
		if err != nil {
			return err
		}
		if err := visit(v, res); err != nil {
			return err
		}
	}
	return nil
}

// fnMap is $map(array, function($value, $index, $array)): the function's
// results, Undefined ones left out.
func fnMap(c *Call, args []any) (any, error) {
	return fnCollect(c, args, func(_, res any) (any, bool, error) {
		return res, res != Undefined, nil
	})
}

// fnFilter is $filter(array, function($value, $index, $array)): the
// members for which the function's result is true.
func fnFilter(c *Call, args []any) (any, error) {
	return fnCollect(c, args, func(v, res any) (any, bool, error) {
		keep, err := truthy(res)
		return v, keep, err
	})
}

// fnCollect runs $map or $filter over args (array, function): pick says
// what each member and the function's result for it contribute.
func fnCollect(c *Call, args []any, pick func(v, res any) (any, bool, error)) (any, error) {
	a, ok := args[0].([]any)
	if !ok {
		return Undefined, nil
	}
	var out []any
	err := fnEachResult(c, a, args[1], func(v, res any) error {
		x, keep, err := pick(v, res)
		if keep {
			out = append(out, x)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return fnSequence(c, out), nil
}

// fnSingle is $single(array, function): the one member for which the
// function (by default any member) is true; error D3138 for more, D3139
// for none.
func fnSingle(c *Call, args []any) (any, error) {
	a, ok := args[0].([]any)
	if !ok {
		return Undefined, nil
	}
	var found any = Undefined
	matched := false
	visit := func(v, res any) error {
		keep, err := truthy(res)
		switch {
		case err != nil || !keep:
			return err
		case matched:
			return fnError(c, "D3138", "The $single() function expected exactly 1 matching result.  Instead it matched more.", nil)
		}
		found, matched = v, true
		return nil
	}
	var err error
	if args[1] == Undefined {
		for _, v := range a {
			if err = visit(v, true); err != nil {
				break
			}
		}
	} else {
		err = fnEachResult(c, a, args[1], visit)
	}
	if err != nil {
		return nil, err
	}
	if !matched {
		return nil, fnError(c, "D3139", "The $single() function expected exactly 1 matching result.  Instead it matched 0.", nil)
	}
	return found, nil
}

// fnReduce is $reduce(array, function($acc, $value, $index, $array),
// init): the function folded over the array from the left, starting with
// init or else the first member. The function must declare at least two
// parameters (D3050).
func fnReduce(c *Call, args []any) (any, error) {
	a, ok := args[0].([]any)
	if !ok {
		return Undefined, nil
	}
	fn := args[1]
	arity := fnArity(fn)
	if arity < 2 {
		return nil, fnError(c, "D3050", "The second argument of reduce function must be a function with at least two arguments", nil)
	}
	acc, i := args[2], 0
	if acc == Undefined && len(a) > 0 {
		acc, i = a[0], 1
	}
	for ; i < len(a); i++ {
		callArgs := []any{acc, a[i]}
		if arity >= 3 {
			callArgs = append(callArgs, float64(i))
		}
		if arity >= 4 {
			callArgs = append(callArgs, a)
		}
		var err error
		if acc, err = c.Apply(fn, callArgs...); err != nil {
			return nil, err
		}
	}
	return acc, nil
}
