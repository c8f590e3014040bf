package js

import (
	"math"
	"testing"
)

func TestToPrecision15(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want float64 }{
		{0.1 + 0.2, 0.3},
		{1.0 / 3, 0.333333333333333},
		{123456789012345678, 123456789012346000},
		{9.999999999999999, 10},
		{1000000000000005, 1000000000000010},
		{1000000000000004, 1000000000000000},
		{5e-324, 5e-324},
		{-2.0 / 3, -0.666666666666667},
	}
	for _, tc := range tests {
		if got := ToPrecision15(tc.in); got != tc.want {
			t.Errorf("ToPrecision15(%v) = %v; want %v", tc.in, got, tc.want)
		}
	}
}

func TestShiftPoint(t *testing.T) {
	t.Parallel()
	tests := []struct{ x, by, want float64 }{
		{2.675, 2, 267.5},
		{1e308, 2, math.Inf(1)},
		{math.Inf(1), -2, math.NaN()},
		{0, -3, 0},
		{1.5e-7, 7, 1.5},
	}
	for _, tt := range tests {
		got := ShiftPoint(tt.x, tt.by)
		if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("ShiftPoint(%v, %v) = %v, want %v", tt.x, tt.by, got, tt.want)
		}
	}
}
