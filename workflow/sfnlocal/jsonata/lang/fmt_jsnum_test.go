package lang

import (
	"math"
	"testing"
)

func TestFmtJSNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1.5, "-1.5"}, {0.1, "0.1"},
		{1e21, "1e+21"}, {1.5e21, "1.5e+21"}, {123456789012345680000, "123456789012345680000"},
		{1e-6, "0.000001"}, {1e-7, "1e-7"}, {1.25e-7, "1.25e-7"}, {5e-324, "5e-324"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	}
	for _, tt := range tests {
		if got := fmtJSNumber(tt.in); got != tt.want {
			t.Errorf("fmtJSNumber(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFmtToFixed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		dp   int
		want string
	}{
		{0.5, 0, "1"}, {2.5, 0, "3"}, {1.005, 2, "1.00"}, {0.125, 2, "0.13"}, {1.45, 1, "1.4"},
		{9.995, 2, "9.99"}, {9.9951, 2, "10.00"}, {-0.001, 2, "-0.00"}, {0, 3, "0.000"}, {1e21, 2, "1e+21"},
		{123.456, 0, "123"},
	}
	for _, tt := range tests {
		if got := fmtToFixed(tt.in, tt.dp); got != tt.want {
			t.Errorf("fmtToFixed(%v, %d) = %q, want %q", tt.in, tt.dp, got, tt.want)
		}
	}
}

func TestFmtRoundHalfEven(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		prec int
		want float64
	}{
		{2.5, 0, 2}, {3.5, 0, 4}, {-2.5, 0, -2}, {-1.5, 0, -2}, {0.49999999999999994, 0, 0},
		{1234.565, 2, 1234.56}, {1234.575, 2, 1234.58}, {0.125, 2, 0.12}, {1.005, 2, 1},
		{1e300, 2, 1e300}, {4.35, 1, 4.4},
	}
	for _, tt := range tests {
		if got := fmtRoundHalfEven(tt.in, tt.prec); got != tt.want {
			t.Errorf("fmtRoundHalfEven(%v, %d) = %v, want %v", tt.in, tt.prec, got, tt.want)
		}
	}
}

func TestFmtParseInt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want float64
	}{
		{"42", 42}, {"  -17px", -17}, {"+5", 5}, {"0x1F", 31}, {"0X", math.NaN()}, {"", math.NaN()},
		{"abc", math.NaN()}, {"1e3", 1}, {"007", 7}, {"\u00a012", 12},
	}
	for _, tt := range tests {
		got := fmtParseInt(tt.in)
		if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("fmtParseInt(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestFmtIntegerToRadix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    float64
		radix int
		want  string
	}{
		{255, 16, "ff"}, {-255, 2, "-11111111"}, {0, 2, "0"}, {35, 36, "z"}, {1e21, 10, "1e+21"},
		{1 << 53, 2, "1" + zeros(53)}, {1e30, 16, "c9f2c9cd04675000000000000"}, // V8 pads past double precision with zeros
		{1<<60 + 1<<8, 7, "2031000661631341064600"},
	}
	for _, tt := range tests {
		if got := fmtIntegerToRadix(tt.in, tt.radix); got != tt.want {
			t.Errorf("fmtIntegerToRadix(%v, %d) = %q, want %q", tt.in, tt.radix, got, tt.want)
		}
	}
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}
