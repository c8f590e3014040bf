package js

import "testing"

func TestCompare(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"a", "b", -1},
		{"b", "a", 1},
		{"a", "ab", -1},
		{"ab", "a", 1},
		{"", "a", -1},
		{"a", "a", 0},
		{"", "", 0},
		{"😀", "\uffff", -1}, // U+D83D U+DE00 before U+FFFF
		{"\uffff", "😀", 1},
		{"\ue000", "😀", 1}, // U+E000 after U+D83D
		{"😀", "😁", -1},
	}
	for _, tt := range tests {
		if got := Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestLength(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"", 0}, {"abc", 3}, {"é€", 2}, {"😀", 2}, {"a😀b", 4},
	}
	for _, tt := range tests {
		if got := Length(tt.in); got != tt.want {
			t.Errorf("Length(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
