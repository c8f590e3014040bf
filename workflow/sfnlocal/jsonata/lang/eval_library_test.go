package lang

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
			expr, err := Parse(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			got, err := expr.Evaluate(Undefined, nil, &Options{Library: tt.lib})
			if tt.wantErr != "" {
				if e, ok := err.(*Error); !ok || e.Code != tt.wantErr {
					t.Fatalf("got %v, %v; want error %s", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
