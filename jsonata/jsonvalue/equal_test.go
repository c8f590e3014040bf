package jsonvalue

import (
	"encoding/json"
	"testing"
)

func TestEqual(t *testing.T) {
	t.Parallel()
	decode := func(s string) any {
		v, err := Decode([]byte(s))
		if err != nil {
			t.Fatalf("Decode(%s): %v", s, err)
		}
		return v
	}
	tests := []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":{"x":[1,{"p":1,"q":2}]}}`, `{"b":{"x":[1.0,{"q":2,"p":1}]},"a":1e0}`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":1,"b":2}`, `{"a":1,"c":2}`, false},
		{`{"a":null}`, `{}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`"1"`, `1`, false},
		{`true`, `true`, true},
		{`null`, `null`, true},
		{`0.1`, `0.10`, true},
		{`1e400`, `1e400`, true},
		{`1e999999999`, `2e999999999`, true}, // both beyond float64: compared as +Inf, never expanded
		{`1e-400`, `0`, false},
	}
	for _, tt := range tests {
		if got := Equal(decode(tt.a), decode(tt.b)); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := Equal(decode(tt.b), decode(tt.a)); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestCompareNumbers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b any
		want int
		ok   bool
	}{
		{json.Number("9007199254740993"), json.Number("9007199254740992"), 1, true}, // exact, beyond float64
		{json.Number("1.5"), 1.5, 0, true},
		{int64(2), json.Number("10"), -1, true},
		{json.Number("-1e999"), json.Number("1"), -1, true},
		{"1", json.Number("1"), 0, false},
		{json.Number("1"), nil, 0, false},
	}
	for _, tt := range tests {
		got, ok := CompareNumbers(tt.a, tt.b)
		if got != tt.want || ok != tt.ok {
			t.Errorf("CompareNumbers(%#v, %#v) = %d, %v; want %d, %v", tt.a, tt.b, got, ok, tt.want, tt.ok)
		}
	}
}
