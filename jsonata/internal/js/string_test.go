package js

import (
	"slices"
	"testing"
)

func TestStringSearch(t *testing.T) {
	t.Parallel()
	s := String("a€b€c")
	tests := []struct {
		name      string
		got, want int
	}{
		{"IndexOf", s.IndexOf(String("€"), 0), 1},
		{"IndexOf from", s.IndexOf(String("€"), 2), 3},
		{"IndexOf from before the start", s.IndexOf(String("a"), -5), 0},
		{"IndexOf from past the end", s.IndexOf(String(""), 99), 5},
		{"IndexOf missing", s.IndexOf(String("x"), 0), -1},
		{"LastIndexOf", s.LastIndexOf(String("€")), 3},
		{"LastIndexOf missing", s.LastIndexOf(String("ab")), -1},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

func TestStringParts(t *testing.T) {
	t.Parallel()
	s := String("héllo")
	tests := []struct {
		name string
		got  String
		want string
	}{
		{"Substring", s.Substring(1, 3), "él"},
		{"Substring swapped", s.Substring(3, 1), "él"},
		{"Substring clamped", s.Substring(-2, 99), "héllo"},
		{"Substr", s.Substr(1, 2), "él"},
		{"Substr negative start", s.Substr(-2, 5), "lo"},
		{"Substr negative length", s.Substr(1, -1), ""},
		{"Substr past the end", s.Substr(9, 2), ""},
		{"Slice", s.Slice(1, -1), "éll"},
		{"Slice empty", s.Slice(3, 1), ""},
		{"CharAt", s.CharAt(1), "é"},
		{"CharAt outside", s.CharAt(5), ""},
		{"Repeat", String("ab").Repeat(3), "ababab"},
		{"Repeat negative", String("ab").Repeat(-1), ""},
		{"Concat", Concat(String("a"), nil, String("bc")), "abc"},
	}
	for _, tt := range tests {
		if tt.got.String() != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if !String("").Equal(nil) || String("a").Equal(String("b")) || !s.Contains(String("ll")) || s.Contains(String("L")) {
		t.Error("Equal or Contains is wrong")
	}
}

func TestStringSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s, sep string
		want   []string
	}{
		{"a;b;;c", ";", []string{"a", "b", "", "c"}},
		{"abc", "", []string{"a", "b", "c"}},
		{"abc", "x", []string{"abc"}},
		{"", ";", []string{""}},
		{"a<>b", "<>", []string{"a", "b"}},
	}
	for _, tt := range tests {
		var got []string
		for _, part := range String(tt.s).Split(String(tt.sep)) {
			got = append(got, part.String())
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Split(%q, %q) = %q, want %q", tt.s, tt.sep, got, tt.want)
		}
	}
}
