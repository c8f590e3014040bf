package jsonata

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	lib "github.com/blues/jsonata-go"

	"github.com/sfnapprovals/approvals/workflow/sfnlocal/internal/jsonvalue"
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

// Template evaluates every JSONata expression in v, a JSON value such as
// an Arguments, Output or Assign field, recursively through objects and
// arrays; everything else is copied. Objects keep the template's member
// order. It is TemplateField with the field
// left unnamed, so error causes locate expressions relative to v ("a/b",
// "[0]").
func Template(v any, vars Vars) (any, error) {
	return TemplateField("", v, vars)
}

// TemplateField is Template for the state field named field ("Output",
// "Arguments", "Choices[0]/Condition"). An error's cause names the field
// down to the expression that failed, as AWS does: "Output/order/ids[1]".
// An expression that evaluates to undefined fails the state, as on AWS; it
// is not dropped. Safe for concurrent use.
func TemplateField(field string, v any, vars Vars) (any, error) {
	b, err := bind(vars)
	if err != nil {
		return nil, err
	}
	return walk(field, v, b)
}

func walk(field string, v any, b *binding) (any, error) {
	switch v := v.(type) {
	case string:
		if IsExpression(v) {
			return eval(field, body(v), b)
		}
		return v, nil
	case *jsonvalue.Object:
		out := jsonvalue.NewObject(v.Len()) // in the template's order
		for _, k := range v.Keys() {
			x, _ := v.Get(k)
			x, err := walk(join(field, "/", k), x, b)
			if err != nil {
				return nil, err
			}
			out.Set(k, x)
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			var err error
			if out[i], err = walk(field+"["+strconv.Itoa(i)+"]", x, b); err != nil {
				return nil, err
			}
		}
		return out, nil
	default:
		return v, nil
	}
}

func join(field, sep, name string) string {
	if field == "" {
		return name
	}
	return field + sep + name
}

// binding is the variables of one call in the library's form, with the
// member order of the objects among them.
type binding struct {
	vars  map[string]any
	order orders
}

// bind converts vars into the library's form once per call.
func bind(vars Vars) (*binding, error) {
	b := &binding{vars: make(map[string]any, len(vars)), order: orders{}}
	for name, v := range vars {
		x, err := toLib(v, b.order)
		if err != nil {
			return nil, &Error{Name: ErrorName, Message: fmt.Sprintf("variable $%s: %v", name, err)}
		}
		b.vars[name] = x
	}
	return b, nil
}

// evalMu serializes evaluations: the library sets the name and context of
// its shared built-in functions on every call, so concurrent evaluations
// race and can read each other's context.
var evalMu sync.Mutex

func eval(field, expr string, b *binding) (any, error) {
	compiled, err := compile(expr)
	if err != nil {
		return nil, evaluationError(field, expr, err)
	}
	result, err := run(expr, compiled, b.vars)
	if errors.Is(err, lib.ErrUndefined) {
		return nil, undefinedError(field, expr)
	}
	if err != nil {
		return nil, evaluationError(field, expr, err)
	}
	if result == nil { // the library's null
		return nil, nil
	}
	out, ok, err := fromLib(reflect.ValueOf(result), b.order)
	if err != nil {
		return nil, evaluationError(field, expr, err)
	}
	if !ok {
		return nil, undefinedError(field, expr)
	}
	return out, nil
}

// run evaluates under evalMu. A panic inside the library fails the
// expression instead of the engine.
func run(source string, compiled *lib.Expr, vars map[string]any) (result any, err error) {
	evalMu.Lock()
	defer evalMu.Unlock()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	e, err := instance(source, compiled, vars)
	if err != nil {
		return nil, err
	}
	return e.Eval(nil)
}
