package jsonata

// fnError is an error raised by a built-in: jsonata-js reports it at the
// call, with the function's name as the token.
func fnError(c *Call, code, message string, value any) *Error {
	e := &Error{Code: code, Message: message, Value: value}
	if c != nil {
		e.Position, e.Token = c.Position, c.Name
	}
	return e
}

// fnTruthy is JavaScript's truthiness, which jsonata-js applies to what a
// $sort comparator returns: only undefined, null, false, 0, NaN and ""
// are false; empty arrays and objects are true.
func fnTruthy(v any) bool {
	switch v := v.(type) {
	case undefined, nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case float64:
		return v != 0 && v == v
	}
	return true
}
