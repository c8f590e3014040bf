package js

import (
	"slices"
	"testing"
)

func TestKeyOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want []string
	}{
		{[]string{"b", "a"}, []string{"b", "a"}},
		{[]string{"b", "10", "a", "2", "0"}, []string{"0", "2", "10", "b", "a"}},
		{[]string{"01", "1.5", "-1", "x", "1"}, []string{"1", "01", "1.5", "-1", "x"}},
		{[]string{"4294967295", "4294967294"}, []string{"4294967294", "4294967295"}}, // 2^32-1 is no array index
		{nil, nil},
	}
	for _, tt := range tests {
		if got := KeyOrder(slices.Clone(tt.in)); !slices.Equal(got, tt.want) {
			t.Errorf("KeyOrder(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestArrayIndex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"17", 17, true},
		{"4294967294", 4294967294, true},
		{"4294967295", 0, false},
		{"01", 0, false},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"x", 0, false},
	}
	for _, tt := range tests {
		if got, ok := ArrayIndex(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("ArrayIndex(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
