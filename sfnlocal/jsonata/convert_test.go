package jsonata

import (
	"encoding/json"
	"math"
	"testing"
)

func TestNumberFormatsLikeJavaScript(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want json.Number
	}{
		{3, "3"},
		{-3, "-3"},
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{2.5, "2.5"},
		{1e20, "100000000000000000000"},
		{1e21, "1e+21"},
		{1.5e300, "1.5e+300"},
		{0.000001, "0.000001"},
		{1.5e-7, "1.5e-7"},
		{123456.789, "123456.789"},
		{9007199254740993, "9007199254740992"},
	}
	for _, tt := range tests {
		got, err := number(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("number(%v) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := number(f); err == nil {
			t.Errorf("number(%v) succeeded, want an error", f)
		}
	}
}
