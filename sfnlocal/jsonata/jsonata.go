package jsonata

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	lang "github.com/sfnapprovals/approvals/jsonata"
)

// Vars are the variables an expression sees, by name without the $:
// "states" holds the $states object ({input, result, errorOutput,
// context}); the others are workflow variables. Values are JSON values.
type Vars map[string]any

// Env is what an evaluation sees besides its expression.
type Env struct {
	// Vars are the variables, $states among them.
	Vars Vars
	// Now is the instant every $now() and $millis() of the evaluation
	// answers: the engine's clock. The zero time means the machine's
	// clock, read once when the evaluation starts.
	Now time.Time
	// MaxItems and MaxStringBytes bound each value the evaluation builds
	// and the result copied out of it (lang.Options). Zero, what the
	// engine uses, means lang.DefaultMaxItems and DefaultMaxStringBytes;
	// tests set small limits to reach them cheaply.
	MaxItems, MaxStringBytes int
	// MaxTotalItems and MaxTotalStringBytes bound what the whole
	// evaluation builds, kept or dropped (lang.Options). Zero means
	// lang.DefaultMaxTotalItems and DefaultMaxTotalStringBytes.
	MaxTotalItems, MaxTotalStringBytes int
}

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

// Eval evaluates expr, the text between {% and %}, in env. The result is
// a JSON value. Any failure, including a result that is undefined, is an
// *Error named States.QueryEvaluationError, except that an evaluation
// stopped because ctx ended returns ctx.Err(). Safe for concurrent use.
func Eval(ctx context.Context, expr string, env Env) (any, error) {
	ev, err := newEvaluation(ctx, env)
	if err != nil {
		return nil, err
	}
	return ev.eval("", strings.TrimSpace(expr))
}

// evaluation is what the expressions of one call share: the variables in
// the evaluator's form and the evaluator's options.
type evaluation struct {
	bindings map[string]any
	opts     lang.Options
}

// newEvaluation converts env's variables into the evaluator's form, once
// per call, and fixes the instant.
func newEvaluation(ctx context.Context, env Env) (*evaluation, error) {
	b := make(map[string]any, len(env.Vars))
	for name, v := range env.Vars {
		x, err := toLang(v)
		if err != nil {
			return nil, &Error{Name: ErrorName, Message: fmt.Sprintf("variable $%s: %v", name, err)}
		}
		b[name] = x
	}
	now := env.Now
	if now.IsZero() {
		now = time.Now()
	}
	return &evaluation{bindings: b, opts: lang.Options{
		Library: library, Context: ctx, Now: now,
		MaxItems: env.MaxItems, MaxStringBytes: env.MaxStringBytes,
		MaxTotalItems: env.MaxTotalItems, MaxTotalStringBytes: env.MaxTotalStringBytes,
	}}, nil
}

// eval evaluates one expression of the state field named field. Nothing
// is bound to $ (the context): Step Functions expressions start from
// $states or a variable.
func (ev *evaluation) eval(field, expr string) (any, error) {
	compiled, err := compile(expr)
	if err != nil {
		return nil, evaluationError(field, expr, err)
	}
	result, err := compiled.Evaluate(lang.Undefined, ev.bindings, &ev.opts)
	if err != nil {
		if ev.stopped(err) {
			return nil, err
		}
		return nil, evaluationError(field, expr, err)
	}
	if lang.IsUndefined(result) {
		return nil, undefinedError(field, expr)
	}
	if _, isFunction := result.(lang.Function); isFunction {
		return nil, unsupportedError(field, expr)
	}
	out, err := fromLang(result, ev.opts.MaxItems)
	if err != nil {
		return nil, evaluationError(field, expr, err)
	}
	return out, nil
}

// stopped reports whether err is the evaluation giving up because its
// context ended.
func (ev *evaluation) stopped(err error) bool {
	ctx := ev.opts.Context
	return ctx != nil && ctx.Err() != nil && errors.Is(err, ctx.Err())
}
