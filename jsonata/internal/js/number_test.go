package js

import (
	"math"
	"strings"
	"testing"
)

func TestNumberToString(t *testing.T) {
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
		if got := NumberToString(tt.in); got != tt.want {
			t.Errorf("NumberToString(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestToFixed(t *testing.T) {
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
		if got := ToFixed(tt.in, tt.dp); got != tt.want {
			t.Errorf("ToFixed(%v, %d) = %q, want %q", tt.in, tt.dp, got, tt.want)
		}
	}
}

func TestToRadix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    float64
		radix int
		want  string
	}{
		{255, 16, "ff"}, {-255, 2, "-11111111"}, {0, 2, "0"}, {35, 36, "z"}, {1e21, 10, "1e+21"},
		{1 << 53, 2, "1" + strings.Repeat("0", 53)}, {1e30, 16, "c9f2c9cd04675000000000000"}, // V8 pads past double precision with zeros
		{1<<60 + 1<<8, 7, "2031000661631341064600"}, {math.Inf(-1), 16, "-Infinity"},
	}
	for _, tt := range tests {
		if got := ToRadix(tt.in, tt.radix); got != tt.want {
			t.Errorf("ToRadix(%v, %d) = %q, want %q", tt.in, tt.radix, got, tt.want)
		}
	}
}

// sameNumber is == with NaN equal to itself.
func sameNumber(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
