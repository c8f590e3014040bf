package jsonata

import (
	"testing"
)

// TestNewLibrary checks that a library adds, replaces and removes
// functions, and that building one leaves the standard library alone.
func TestNewLibrary(t *testing.T) {
	t.Parallel()
	double := &Builtin{Name: "double", Signature: "<n:n>", Impl: func(_ *Call, args []any) (any, error) {
		return args[0].(float64) * 2, nil
	}}
	shout := &Builtin{Name: "uppercase", Signature: "<s:s>", Impl: func(_ *Call, args []any) (any, error) {
		return args[0].(string) + "!", nil
	}}
	lib := NewLibrary([]*Builtin{double, shout}, "lowercase", "eval")
	tests := []struct {
		name, expr string
		lib        *Library
		want       any    // the result, when no error
		wantErr    string // the error code
	}{
		{"added", "$double(21)", lib, float64(42), ""},
		{"replaced", "$uppercase('a')", lib, "a!", ""},
		{"removed", "$lowercase('A')", lib, nil, "T1006"},
		{"kept", "$trim(' a ')", lib, "a", ""},
		{"standard library unchanged: replaced one", "$uppercase('a')", nil, "A", ""},
		{"standard library unchanged: removed one", "$lowercase('A')", nil, "a", ""},
		{"standard library unchanged: added one", "$double(21)", nil, nil, "T1006"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkEval(t, tt.expr, &Options{Library: tt.lib}, tt.want, tt.wantErr)
		})
	}
}
