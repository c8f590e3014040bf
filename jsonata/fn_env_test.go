package jsonata

import (
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// fnTestEnv stands in for the evaluator when built-ins are tested alone:
// it applies test lambdas and built-ins and replays the oracle's random
// sequence (0.05, 0.15, …).
type fnTestEnv struct {
	draws int
}

func (e *fnTestEnv) apply(fn any, args []any) (any, error) {
	switch f := fn.(type) {
	case *fnTestLambda:
		padded := make([]any, f.params)
		for i := range padded {
			padded[i] = Undefined
			if i < len(args) {
				padded[i] = args[i]
			}
		}
		return f.body(padded)
	case *Builtin:
		return f.Impl(&Call{Name: f.Name, env: e}, args)
	}
	return nil, &Error{Code: "T1006", Message: "Attempted to invoke a non-function"}
}

func (e *fnTestEnv) now() time.Time { return time.UnixMilli(1767225600123) }

func (e *fnTestEnv) random() float64 {
	e.draws = e.draws%10 + 1
	return float64(e.draws)/10 - 0.05
}

// fnTestLambda is a lambda with a Go body, called with exactly params
// arguments as the evaluator calls lambdas.
type fnTestLambda struct {
	params int
	body   func(args []any) (any, error)
}

func (f *fnTestLambda) Arity() int { return f.params }

func fnLambda(params int, body func(args []any) any) *fnTestLambda {
	return &fnTestLambda{params: params, body: func(args []any) (any, error) { return body(args), nil }}
}

// fnCase is one call of a built-in and what it must answer: want is the
// JSON text of the result ("undefined" for Undefined, "error" for an
// error without a code), or err an error code.
type fnCase struct {
	name string
	impl func(*Call, []any) (any, error)
	args []any
	want string
	err  string
}

func runFnCases(t *testing.T, cases []fnCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.impl(&Call{Name: "fn", env: &fnTestEnv{}}, tc.args)
			if tc.want == "error" { // jsonata-js fails with a JavaScript error, no code
				if err == nil {
					t.Fatalf("got %v; want an error", fnRender(got))
				}
				return
			}
			if tc.err != "" {
				e, ok := err.(*Error)
				if !ok || e.Code != tc.err {
					t.Fatalf("got %v, %v; want error %s", fnRender(got), err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v; want %s", err, tc.want)
			}
			if r := fnRender(got); r != tc.want {
				t.Errorf("got %s; want %s", r, tc.want)
			}
		})
	}
}

func fnRender(v any) string {
	if v == Undefined {
		return "undefined"
	}
	if s, ok := v.(string); ok {
		return js.Quote(s)
	}
	return jsonStringify(v)
}

func fnObj(kv ...any) *jsonvalue.Object { return jsonvalue.ObjectOf(kv...) }

func fnArr(v ...any) []any { return v }

var fnU = Undefined
