package jsonata

import (
	"errors"
	"testing"
)

// checkEval parses and evaluates expr with opts and fails t unless the
// result is want or, when wantErr is set, the error has that code. It
// returns that error, nil when none was wanted.
func checkEval(t *testing.T, expr string, opts *Options, want any, wantErr string) *Error {
	t.Helper()
	parsed, err := Parse(expr)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parsed.Evaluate(Undefined, nil, opts)
	if wantErr != "" {
		var e *Error
		if !errors.As(err, &e) || e.Code != wantErr {
			t.Fatalf("got %v, %v; want error %s", got, err, wantErr)
		}
		return e
	}
	if err != nil || got != want {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
	return nil
}
