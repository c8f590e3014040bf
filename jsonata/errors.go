package jsonata

import (
	"maps"
	"strings"
)

// errorTexts are jsonata-js's message templates for the errors the parser
// and evaluator raise. {{name}} inserts the JSON text of an insert,
// {{{name}}} its plain text.
var errorTexts = map[string]string{
	"S0101": "String literal must be terminated by a matching quote",
	"S0102": "Number out of range: {{token}}",
	"S0103": "Unsupported escape sequence: \\{{token}}",
	"S0104": "The escape sequence \\u must be followed by 4 hex digits",
	"S0105": "Quoted property name must be terminated with a backquote (`)",
	"S0106": "Comment has no closing tag",
	"S0201": "Syntax error: {{token}}",
	"S0202": "Expected {{value}}, got {{token}}",
	"S0203": "Expected {{value}} before end of expression",
	"S0204": "Unknown operator: {{token}}",
	"S0205": "Unexpected token: {{token}}",
	"S0206": "Unknown expression type: {{token}}",
	"S0207": "Unexpected end of expression",
	"S0208": "Parameter {{value}} of function definition must be a variable name (start with $)",
	"S0209": "A predicate cannot follow a grouping expression in a step",
	"S0210": "Each step can only have one grouping expression",
	"S0211": "The symbol {{token}} cannot be used as a unary operator",
	"S0212": "The left side of := must be a variable name (start with $)",
	"S0213": "The literal value {{value}} cannot be used as a step within a path expression",
	"S0214": "The right side of {{token}} must be a variable name (start with $)",
	"S0215": "A context variable binding must precede any predicates on a step",
	"S0216": "A context variable binding must precede the 'order-by' clause on a step",
	"S0217": "The object representing the 'parent' cannot be derived from this expression",
	"S0301": "Empty regular expressions are not allowed",
	"S0302": "No terminating / in regular expression",
	"S0402": "Choice groups containing parameterized types are not supported",
	"S0401": "Type parameters can only be applied to functions and arrays",
	"T0410": "Argument {{index}} of function {{token}} does not match function signature",
	"T0411": "Context value is not a compatible type with argument {{index}} of function {{token}}",
	"T0412": "Argument {{index}} of function {{token}} must be an array of {{type}}",
	"D1001": "Number out of range: {{value}}",
	"D1002": "Cannot negate a non-numeric value: {{value}}",
	"T1003": "Key in object structure must evaluate to a string; got: {{value}}",
	"D1004": "Regular expression matches zero length string",
	"T1005": "Attempted to invoke a non-function. Did you mean ${{{token}}}?",
	"T1006": "Attempted to invoke a non-function",
	"T1007": "Attempted to partially apply a non-function. Did you mean ${{{token}}}?",
	"T1008": "Attempted to partially apply a non-function",
	"D1009": "Multiple key definitions evaluate to same key: {{value}}",
	"T2001": "The left side of the {{token}} operator must evaluate to a number",
	"T2002": "The right side of the {{token}} operator must evaluate to a number",
	"T2003": "The left side of the range operator (..) must evaluate to an integer",
	"T2004": "The right side of the range operator (..) must evaluate to an integer",
	"T2006": "The right side of the function application operator ~> must be a function",
	"T2007": "Type mismatch when comparing values {{value}} and {{value2}} in order-by clause",
	"T2008": "The expressions within an order-by clause must evaluate to numeric or string values",
	"T2009": "The values {{value}} and {{value2}} either side of operator {{token}} must be of the same data type",
	"T2010": "The expressions either side of operator {{token}} must evaluate to numeric or string values",
	"T2011": "The insert/update clause of the transform expression must evaluate to an object: {{value}}",
	"T2012": "The delete clause of the transform expression must evaluate to a string or array of strings: {{value}}",
	"T2013": "The transform expression clones the input object using the $clone() function.  This has been overridden in the current scope by a non-function.",
	"D2014": "The size of the sequence allocated by the range operator (..) must not exceed 1e6.  Attempted to allocate {{value}}.",
	"D3001": "Attempting to invoke string function on Infinity or NaN",
	"U1001": "Stack overflow error: Check for non-terminating recursive function.  Consider rewriting as tail-recursive.",
}

// inserts are the values an error message template refers to.
type inserts map[string]any

// errAt builds the error with code at pos, rendering its message from the
// inserts. An insert named "token" also becomes the error's Token, and
// one named "value" its Value.
func errAt(code string, pos int, ins inserts) *Error {
	e := &Error{Code: code, Position: pos, Message: renderMessage(errorTexts[code], ins), inserts: ins}
	if t, ok := ins["token"]; ok {
		if IsUndefined(t) {
			e.pending = ins // a caller may name the function later
		} else {
			e.Token = jsText(t)
		}
	}
	if v, ok := ins["value"]; ok {
		e.Value = v
	}
	return e
}

func renderMessage(tmpl string, ins inserts) string {
	if !strings.Contains(tmpl, "{{") {
		return tmpl
	}
	var b strings.Builder
	for {
		i := strings.Index(tmpl, "{{")
		if i < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		raw := strings.HasPrefix(tmpl[i:], "{{{")
		open, closing := "{{", "}}"
		if raw {
			open, closing = "{{{", "}}}"
		}
		rest := tmpl[i+len(open):]
		j := strings.Index(rest, closing)
		name := rest[:j]
		v, ok := ins[name]
		switch {
		case raw && ok:
			b.WriteString(jsText(v))
		case raw:
			b.WriteString("undefined")
		case ok:
			b.WriteString(jsonStringify(v))
		default:
			b.WriteString("undefined")
		}
		tmpl = rest[j+len(closing):]
	}
}

// withPosition sets the position of a jsonata error that has none; other
// errors pass through.
func withPosition(err error, pos int) error {
	if e, ok := err.(*Error); ok && e.Position == 0 {
		e.Position = pos
	}
	return err
}

// retoken gives a jsonata error a new token, as jsonata-js does before it
// renders the message, so a message naming the token names the new one.
func retoken(e *Error, token string) {
	e.Token = token
	if e.inserts == nil {
		return
	}
	ins := make(inserts, len(e.inserts)+1)
	maps.Copy(ins, e.inserts)
	ins["token"] = token
	e.inserts, e.pending = ins, nil
	e.Message = renderMessage(errorTexts[e.Code], ins)
}

// withToken sets the token of a jsonata error that has none, completing
// a message that names it.
func withToken(err error, token string) error {
	if e, ok := err.(*Error); ok && e.Token == "" && token != "" {
		e.Token = token
		if e.pending != nil {
			e.pending["token"] = token
			e.Message = renderMessage(errorTexts[e.Code], e.pending)
			e.pending = nil
		}
	}
	return err
}
