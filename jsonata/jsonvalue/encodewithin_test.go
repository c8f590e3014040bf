package jsonvalue

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEncodeWithin(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 100)
	shared := ObjectOf("s", big)
	many := make([]any, 1<<20) // a million references to one 108-byte object
	for i := range many {
		many[i] = shared
	}
	tests := []struct {
		name   string
		v      any
		max    int
		want   string
		wantOK bool
	}{
		{"fits", ObjectOf("a", []any{json.Number("1"), true, nil}), 100, `{"a":[1,true,null]}`, true},
		{"exactly max", "abc", 5, `"abc"`, true},
		{"one past max", "abcd", 5, "", false},
		{"escapes count", "\n\n", 5, "", false},
		{"shared member many times", many, 1000, "", false},
		{"invalid number", json.Number("1x"), 10, "null", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := EncodeWithin(tt.v, tt.max)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("EncodeWithin = %q, %v; want %q, %v", got, ok, tt.want, tt.wantOK)
			}
			if ok && got != Encode(tt.v) {
				t.Errorf("EncodeWithin = %q, Encode = %q", got, Encode(tt.v))
			}
		})
	}
}
