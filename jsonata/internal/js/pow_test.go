package js

import (
	"math"
	"testing"
)

// TestPowMatchesV8 checks powers whose V8 results are known; Go's
// math.Pow is an ulp off on several of them.
func TestPowMatchesV8(t *testing.T) {
	t.Parallel()
	tests := []struct{ x, y, want float64 }{
		{8.103080969303846, -2, 0.015229990865031922},
		{14.917621612548828, 20, 2.978459783046576e+23},
		{1.1, 10, 2.5937424601000023},
		{2, 0.5, 1.4142135623730951},
		{10, -2, 0.01},
		{2, -1074, 5e-324},
		{2, 1023, 8.98846567431158e+307},
		{1.0001, 10000, 2.7181459268249255},
		{0.5, -1, 2},
		{7, 0.1, 1.214814044039067},
		{-1, 1e300, 1},
	}
	for _, tc := range tests {
		if got := Pow(tc.x, tc.y); got != tc.want {
			t.Errorf("Pow(%v, %v) = %v; want %v", tc.x, tc.y, got, tc.want)
		}
	}
	if got := Pow(math.Copysign(0, -1), 3); !math.Signbit(got) {
		t.Errorf("Pow(-0, 3) = %v; want -0", got)
	}
}

// TestPowNonFinite checks JavaScript's rules for NaN and infinite
// operands, which differ from C's pow on ±1.
func TestPowNonFinite(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct{ x, y, want float64 }{
		{nan, 0, 1},
		{2, nan, nan},
		{nan, 10, nan},
		{1, nan, nan},
		{1, inf, nan},
		{-1, -inf, nan},
		{2, inf, inf},
		{0.5, inf, 0},
		{inf, -1, 0},
		{-inf, 3, -inf},
	}
	for _, tc := range tests {
		got := Pow(tc.x, tc.y)
		if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("Pow(%v, %v) = %v; want %v", tc.x, tc.y, got, tc.want)
		}
	}
}
