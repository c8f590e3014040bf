package jsonvalue

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// stdEncode is encoding/json's text for v with HTML escaping off, which
// Encode must match.
func stdEncode(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func TestEncodeStringsLikeEncodingJSON(t *testing.T) {
	t.Parallel()
	strs := []string{"", "plain", `quote " backslash \ slash /`, "<&>", "tab\tnl\ncr\rbs\bff\f", "\x00\x01\x1f\x7f",
		"é…ünïcødé 😀", "\u2028\u2029", "bad \xff\xfe utf8 \xc3", "\xed\xa0\x80 surrogate"}
	for c := range 256 {
		strs = append(strs, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"b")
	}
	for _, s := range strs {
		if got, want := Encode(s), stdEncode(t, s); got != want {
			t.Errorf("Encode(%q) = %s, want %s", s, got, want)
		}
		o := ObjectOf(s, s)
		if got, want := Encode(o), "{"+stdEncode(t, s)+":"+stdEncode(t, s)+"}"; got != want {
			t.Errorf("Encode(object with key %q) = %s, want %s", s, got, want)
		}
	}
}

func TestEncodeValues(t *testing.T) {
	t.Parallel()
	var nilObject *Object
	tests := []struct {
		in   any
		want string
	}{
		{json.Number("-1.50e+3"), "-1.50e+3"},
		{json.Number(""), "0"},
		{json.Number("01"), "null"}, // not a JSON number: Encode fails to "null"
		{json.Number("1."), "null"},
		{math.NaN(), "null"},
		{nilObject, "null"},
		{[]any{}, "[]"},
		{NewObject(0), "{}"},
		{2.5, "2.5"},
		{int64(7), "7"},
		{ObjectOf("b", ObjectOf("y", []any{ObjectOf("k", nil)}), "a", "x"), `{"b":{"y":[{"k":null}]},"a":"x"}`},
	}
	for _, tt := range tests {
		if got := Encode(tt.in); got != tt.want {
			t.Errorf("Encode(%#v) = %s, want %s", tt.in, got, tt.want)
		}
	}
	b, err := json.Marshal([]any{ObjectOf("z", 1, "a", 2)})
	if err != nil || string(b) != `[{"z":1,"a":2}]` {
		t.Errorf("json.Marshal through MarshalJSON = %s, %v", b, err)
	}
}

func TestValidNumber(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"0": true, "-0": true, "12": true, "1.5": true, "1e5": true, "1E+5": true, "-2.5e-3": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "1e": false, "+1": false, "1e+": false, "0x1": false, "NaN": false,
	} {
		if got := validNumber(s); got != want {
			t.Errorf("validNumber(%q) = %v, want %v", s, got, want)
		}
	}
}
