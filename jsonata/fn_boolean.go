package jsonata

// fnBooleanFn is $boolean(arg). jsonata-js passes a function argument to
// a built-in as a plain JavaScript function, which is false; a function
// inside an array is true, as it is in a condition.
func fnBooleanFn(_ *Call, args []any) (any, error) {
	return fnBooleanArg(args[0])
}

// fnNot is $not(arg).
func fnNot(_ *Call, args []any) (any, error) {
	b, err := fnBooleanArg(args[0])
	if err != nil || b == Undefined {
		return b, err
	}
	return !b.(bool), nil
}

// fnBooleanArg is the effective boolean value of a built-in's argument:
// Undefined for Undefined.
func fnBooleanArg(v any) (any, error) {
	switch {
	case v == Undefined:
		return Undefined, nil
	case isFunction(v):
		return false, nil
	}
	b, err := truthy(v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// fnExists is $exists(arg): false only for Undefined.
func fnExists(_ *Call, args []any) (any, error) {
	return args[0] != Undefined, nil
}

// fnType is $type(value): "null", "number", "string", "boolean",
// "array", "function" or "object"; Undefined for Undefined.
func fnType(_ *Call, args []any) (any, error) {
	switch args[0].(type) {
	case undefined:
		return Undefined, nil
	case nil:
		return "null", nil
	case float64:
		return "number", nil
	case string:
		return "string", nil
	case bool:
		return "boolean", nil
	case []any:
		return "array", nil
	case Function:
		return "function", nil
	}
	return "object", nil
}

// fnErrorFn is $error(message): error D3137 with the message.
func fnErrorFn(c *Call, args []any) (any, error) {
	msg, _ := args[0].(string)
	if msg == "" {
		msg = "$error() function evaluated"
	}
	return nil, fnError(c, "D3137", msg, nil)
}

// fnAssert is $assert(condition, message): error D3141 with the message
// unless condition is true.
func fnAssert(c *Call, args []any) (any, error) {
	if ok, _ := args[0].(bool); ok {
		return Undefined, nil
	}
	msg, _ := args[1].(string)
	if msg == "" {
		msg = "$assert() statement failed"
	}
	return nil, fnError(c, "D3141", msg, nil)
}
