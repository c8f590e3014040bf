package jsonata

import (
	"fmt"
	"strings"

	"github.com/sfnapprovals/approvals/workflow/sfnlocal/jsonata/lang"
)

// Vars are the variables an expression sees, by name without the $:
// "states" holds the $states object ({input, result, errorOutput,
// context}); the others are workflow variables. Values are JSON values.
type Vars map[string]any

// IsExpression reports whether s is a JSONata expression: the whole
// string wrapped in {% and %}, with no text outside them.
func IsExpression(s string) bool {
	return len(s) >= 4 && strings.HasPrefix(s, "{%") && strings.HasSuffix(s, "%}")
}

// body returns the expression inside {% … %}, trimmed.
func body(s string) string {
	return strings.TrimSpace(s[2 : len(s)-2])
}

// Validate reports whether expr (the text between {% and %}) parses. The
// error is an *Error.
func Validate(expr string) error {
	if _, err := compile(expr); err != nil {
		return evaluationError("", expr, err)
	}
	return nil
}

// Eval evaluates expr, the text between {% and %}, with vars bound. The
// result is a JSON value. Any failure, including a result that is
// undefined, is an *Error named States.QueryEvaluationError. Safe for
// concurrent use.
func Eval(expr string, vars Vars) (any, error) {
	b, err := bind(vars)
	if err != nil {
		return nil, err
	}
	return eval("", strings.TrimSpace(expr), b)
}

// bind converts vars into the evaluator's form, once per call.
func bind(vars Vars) (map[string]any, error) {
	b := make(map[string]any, len(vars))
	for name, v := range vars {
		x, err := toLang(v)
		if err != nil {
			return nil, &Error{Name: ErrorName, Message: fmt.Sprintf("variable $%s: %v", name, err)}
		}
		b[name] = x
	}
	return b, nil
}

// eval evaluates one expression of the state field named field. Nothing
// is bound to $ (the context): Step Functions expressions start from
// $states or a variable.
func eval(field, expr string, bindings map[string]any) (any, error) {
	compiled, err := compile(expr)
	if err != nil {
		return nil, evaluationError(field, expr, err)
	}
	result, err := compiled.Evaluate(lang.Undefined, bindings, options)
	if err != nil {
		return nil, evaluationError(field, expr, err)
	}
	if lang.IsUndefined(result) {
		return nil, undefinedError(field, expr)
	}
	out, err := fromLang(result)
	if err != nil {
		return nil, evaluationError(field, expr, err)
	}
	return out, nil
}
