package jsonata

import (
	"math/rand/v2"
	"time"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// DefaultMaxDepth is the evaluation depth used when Options.MaxDepth is
// zero. Depth counts nested evaluation steps, so a recursive lambda uses
// several per call; tail calls use none.
const DefaultMaxDepth = 10000

// Expr is a parsed JSONata expression. It is immutable and safe for
// concurrent use.
type Expr struct {
	src  string
	tree *node
}

// Parse parses a JSONata expression. Syntax errors are *Error with
// jsonata-js's S0xxx codes and messages.
func Parse(expr string) (*Expr, error) {
	tree, err := parse(expr)
	if err != nil {
		return nil, err
	}
	return &Expr{src: expr, tree: tree}, nil
}

// String returns the expression's source text.
func (e *Expr) String() string { return e.src }

// Evaluate evaluates the expression against input (Undefined for none)
// with bindings as variables ($name). The result is Undefined when the
// expression has no value. Errors are *Error, except that an evaluation
// stopped by opts.Context returns the context's error. Evaluation never
// changes input, bindings or anything inside them.
func (e *Expr) Evaluate(input any, bindings map[string]any, opts *Options) (result any, err error) {
	defer recoverTooDeep(&err)
	if opts == nil {
		opts = &Options{}
	}
	s := &state{lib: standardLibrary().funcs, maxDepth: DefaultMaxDepth, clock: opts.Now, rand: opts.Random, budget: newBudget(opts)}
	if opts.Library != nil {
		s.lib = opts.Library.funcs
	}
	if opts.MaxDepth > 0 {
		s.maxDepth = opts.MaxDepth
	}
	if s.clock.IsZero() {
		s.clock = time.Now()
	}
	if s.rand == nil {
		s.rand = rand.Float64
	}
	if ctx := opts.Context; ctx != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.ctx, s.done = ctx, ctx.Done()
	}
	env := newFrame(nil)
	for k, v := range bindings {
		env.bind(k, v)
	}
	env.bind("$", input)
	if a, ok := input.([]any); ok {
		input = s.mark([]any{a}, fSeq|fOuter)
	}
	r, err := s.eval(e.tree, input, env)
	if err != nil {
		return nil, err
	}
	return s.output(r), nil
}

// output turns the evaluator's result into a plain value: sequences are
// arrays, an undefined member of an array (which jsonata-js shows as
// null) is null, and an undefined object member is left out. NaN and the
// infinities stay numbers, as in jsonata-js; what JSON makes of them is
// the caller's choice.
func (s *state) output(v any) any {
	switch x := v.(type) {
	case *seq:
		return s.output(s.finish(&node{}, x))
	case tupleStream:
		out := make([]any, len(x))
		for i, t := range x {
			out[i] = t["@"]
		}
		return s.output(out)
	}
	visits := 0
	out, _ := jsonReady(v, 0, &visits, s.budget.max)
	return out
}

// jsonReady returns v with its undefined members replaced or left out,
// and whether anything changed; unchanged arrays and objects are v's own.
// It panics with overBudget past limit members visited in all, so a value
// that shares its arrays cannot make it walk exponentially long.
func jsonReady(v any, depth int, visits *int, limit int) (any, bool) {
	checkValueDepth(depth)
	*visits++
	checkRoom(*visits, limit)
	switch x := v.(type) {
	case []any:
		var out []any
		for i, m := range x {
			r, changed := jsonReady(m, depth+1, visits, limit)
			if IsUndefined(m) {
				r, changed = nil, true
			}
			if changed && out == nil {
				out = append(make([]any, 0, len(x)), x[:i]...)
			}
			if out != nil {
				out = append(out, r)
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case *jsonvalue.Object:
		var out *jsonvalue.Object
		for i, k := range x.Keys() {
			m, _ := x.Get(k)
			r, changed := jsonReady(m, depth+1, visits, limit)
			if IsUndefined(m) {
				changed = true
			}
			if changed && out == nil {
				out = jsonvalue.NewObject(x.Len())
				for _, pk := range x.Keys()[:i] {
					pm, _ := x.Get(pk)
					out.Set(pk, pm)
				}
			}
			if out != nil && !IsUndefined(m) {
				out.Set(k, r)
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}
