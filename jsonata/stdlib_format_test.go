package jsonata

import (
	"errors"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// clockEnv stands in for the evaluator: a fixed clock, and no lambdas.
type clockEnv struct{ at time.Time }

func (clockEnv) apply(any, []any) (any, error) { return nil, errors.New("no lambdas here") }
func (e clockEnv) now() time.Time              { return e.at }
func (clockEnv) random() float64               { return 0 }

func formatBuiltin(t *testing.T, name string) *Builtin {
	t.Helper()
	for _, b := range formatFunctions() {
		if b.Name == name {
			return b
		}
	}
	t.Fatalf("no built-in %q", name)
	return nil
}

// TestFormatFunctionsBuiltins calls each built-in as the evaluator would:
// one argument per parameter, Undefined for those not given.
func TestFormatFunctionsBuiltins(t *testing.T) {
	t.Parallel()
	clock := time.UnixMilli(1521801216617) // 2018-03-23T10:33:36.617Z
	u := Undefined
	tests := []struct {
		fn      string
		args    []any
		want    any
		wantErr string
	}{
		{"now", []any{u, u}, "2018-03-23T10:33:36.617Z", ""},
		{"now", []any{"[H01]:[m01] [Z]", "+0200"}, "12:33 +02:00", ""},
		{"now", []any{"[Y", u}, nil, "D3135"},
		{"millis", []any{}, 1521801216617.0, ""},
		{"fromMillis", []any{0.0, u, u}, "1970-01-01T00:00:00.000Z", ""},
		{"fromMillis", []any{u, "[Y]", u}, u, ""},
		{"fromMillis", []any{0.0, "[FNn], [D1o] [MNn] [Y]", "-0100"}, "Wednesday, 31st December 1969", ""},
		{"toMillis", []any{"2018-03-23T10:33:36.617Z", u}, 1521801216617.0, ""},
		{"toMillis", []any{"yesterday", u}, nil, "D3110"},
		{"toMillis", []any{u, u}, u, ""},
		{"toMillis", []any{"10:00", "[H]:[m]"}, 1521799200000.0, ""}, // the date comes from the clock
		{"toMillis", []any{"nope", "[H]:[m]"}, u, ""},
		{"formatNumber", []any{1234.5, "#,##0.00", u}, "1,234.50", ""},
		{"formatNumber", []any{1234.5, "#.##0,00", jsonvalue.ObjectOf("decimal-separator", ",", "grouping-separator", ".")}, "1.234,50", ""},
		{"formatNumber", []any{u, "#", u}, u, ""},
		{"formatNumber", []any{1.0, "#;#;#", u}, nil, "D3080"},
		{"formatBase", []any{255.0, 16.0}, "ff", ""},
		{"formatBase", []any{255.0, u}, "255", ""},
		{"formatBase", []any{255.0, 1.0}, nil, "D3100"},
		{"formatInteger", []any{1999.0, "I"}, "MCMXCIX", ""},
		{"formatInteger", []any{u, "I"}, u, ""},
		{"formatInteger", []any{1.0, "#"}, nil, "D3130"},
		{"parseInteger", []any{"MCMXCIX", "I"}, 1999.0, ""},
		{"parseInteger", []any{"1", "0٠"}, nil, "D3131"},
	}
	for _, tt := range tests {
		b := formatBuiltin(t, tt.fn)
		got, err := b.Impl(&Call{Name: tt.fn, env: clockEnv{clock}}, tt.args)
		if tt.wantErr != "" {
			var e *Error
			if !errors.As(err, &e) || e.Code != tt.wantErr {
				t.Errorf("$%s%v: error %v, want code %s", tt.fn, tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("$%s%v = %#v, %v; want %#v", tt.fn, tt.args, got, err, tt.want)
		}
	}
}

func TestFormatFunctionsSignatures(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"now": "<s?s?:s>", "millis": "<:n>", "fromMillis": "<n-s?s?:s>", "toMillis": "<s-s?:n>",
		"formatNumber": "<n-so?:s>", "formatBase": "<n-n?:s>", "formatInteger": "<n-s:s>", "parseInteger": "<s-s:n>",
	}
	got := map[string]string{}
	for _, b := range formatFunctions() {
		got[b.Name] = b.Signature
	}
	if len(got) != len(want) {
		t.Errorf("got %d functions, want %d", len(got), len(want))
	}
	for name, sig := range want {
		if got[name] != sig {
			t.Errorf("$%s signature = %q, want %q", name, got[name], sig)
		}
	}
}
