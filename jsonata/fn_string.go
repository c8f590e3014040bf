package jsonata

import (
	"math"
	"strings"
)

// fnStringWithin is JSONata's cast to string ($string, and the &
// operator): strings as they are, functions as "", anything else as JSON
// with numbers rounded to 15 significant digits, indented by two spaces
// when pretty. A non-finite number is error D3001, or D1001 inside a
// structure. It fails with "Invalid string length" once the text passes
// limit bytes (0 for DefaultMaxStringBytes).
func fnStringWithin(v any, pretty bool, limit int) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case Function:
		return "", nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "", &Error{Code: "D3001", Message: "Attempting to invoke string function on Infinity or NaN", Value: v}
		}
	}
	var b strings.Builder
	w := fnJSONWriter{b: &b, limit: limit}
	if pretty {
		w.indent = "  "
	}
	w.value(v, "")
	if w.err != nil {
		return "", w.err
	}
	return b.String(), nil
}

// fnString is $string(arg, prettify).
func fnString(c *Call, args []any) (any, error) {
	if args[0] == Undefined {
		return Undefined, nil
	}
	pretty, _ := args[1].(bool)
	s, err := fnStringWithin(args[0], pretty, max(c.stringRoom(), 1))
	if err != nil {
		e := err.(*Error)
		e.Position, e.Token = c.Position, c.Name
		return nil, e
	}
	return s, nil
}
