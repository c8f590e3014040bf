package jsonvalue

import (
	"encoding/json"
	"math"
	"testing"
)

func TestFloat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want float64
		ok   bool
	}{
		{json.Number("2.5"), 2.5, true},
		{json.Number("1e400"), math.Inf(1), true},
		{int64(3), 3, true},
		{"3", 0, false},
	}
	for _, tt := range tests {
		if got, ok := Float(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("Float(%#v) = %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestEncodeAndTypeName(t *testing.T) {
	t.Parallel()
	v := ObjectOf("z", []any{Int(1), "<b>", nil, true}, "a", false)
	if got, want := Encode(v), `{"z":[1,"<b>",null,true],"a":false}`; got != want {
		t.Errorf("Encode = %s, want %s", got, want)
	}
	if got := Encode(math.NaN()); got != "null" {
		t.Errorf("Encode(NaN) = %s, want null", got)
	}
	for v, want := range map[any]string{nil: "null", "s": "string", true: "boolean", json.Number("1"): "number", NewObject(0): "object"} {
		if got := TypeName(v); got != want {
			t.Errorf("TypeName(%#v) = %s, want %s", v, got, want)
		}
	}
}
