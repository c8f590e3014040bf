package js

import (
	"math"
	"testing"
)

func TestParseInt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want float64
	}{
		{"42", 42}, {"  -17px", -17}, {"+5", 5}, {"0x1F", 31}, {"-0xff", -255}, {"0X", math.NaN()}, {"", math.NaN()},
		{"abc", math.NaN()}, {"1e3", 1}, {"007", 7}, {"\u00a012", 12}, {"\ufeff3", 3},
	}
	for _, tt := range tests {
		if got := ParseInt(tt.in); !sameNumber(got, tt.want) {
			t.Errorf("ParseInt(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseDecimalInt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want float64
	}{
		{"42", 42}, {"\u3000-17px", -17}, {"+5", 5}, {"0x1F", 0}, {"", math.NaN()}, {"-", math.NaN()},
		{"1.5", 1}, {"\u0085 1", math.NaN()}, // U+0085 is no white space in JavaScript
	}
	for _, tt := range tests {
		if got := ParseDecimalInt(tt.in); !sameNumber(got, tt.want) {
			t.Errorf("ParseDecimalInt(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestToNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want float64
	}{
		{"", 0}, {" \n", 0}, {"42", 42}, {" -1.5e3 ", -1500}, {".5", 0.5}, {"5.", 5}, {"+Infinity", math.Inf(1)},
		{"-Infinity", math.Inf(-1)}, {"1e1000", math.Inf(1)}, {"0x1F", 31}, {"0o17", 15}, {"0B101", 5},
		{"0x", math.NaN()}, {"0x1G", math.NaN()}, {"0x+1", math.NaN()}, {"-0x10", math.NaN()}, {"1_000", math.NaN()},
		{"12px", math.NaN()}, {"NaN", math.NaN()}, {"infinity", math.NaN()},
	}
	for _, tt := range tests {
		if got := ToNumber(tt.in); !sameNumber(got, tt.want) {
			t.Errorf("ToNumber(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
