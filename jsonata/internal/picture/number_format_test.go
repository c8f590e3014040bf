package picture

import (
	"errors"
	"math"
	"testing"
)

func TestFormatNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value   float64
		picture string
		symbols map[string]string
		want    string
	}{
		{1234.5, "#,##0.00", nil, "1,234.50"},
		{-1234.5, "#,##0.00", nil, "-1,234.50"},
		{-1234.5, "#,##0.00;(#,##0.00)", nil, "(1,234.50)"},
		{0.256, "#%", nil, "26%"},
		{1234.5, "#.##0,00", map[string]string{"decimal-separator": ",", "grouping-separator": "."}, "1.234,50"},
		{12.5, "٠٠.٠", map[string]string{"zero-digit": "٠"}, "١٢.٥"},
		{1234.5, "0.00e0", nil, "1.23e3"},
	}
	for _, tt := range tests {
		got, err := FormatNumber(tt.value, tt.picture, tt.symbols)
		if err != nil || got != tt.want {
			t.Errorf("FormatNumber(%v, %q, %v) = %q, %v; want %q", tt.value, tt.picture, tt.symbols, got, err, tt.want)
		}
	}
}

// TestFormatNumberExponentTerminates: jsonata-js loops forever scaling
// zero or a negative number to an exponent picture; we must return.
func TestFormatNumberExponentTerminates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value float64
		want  string
	}{
		{0, "0.0e0"},
		{-1234, "-1234.0e0"},
		{math.SmallestNonzeroFloat64, "4.9e-324"},
	}
	for _, tt := range tests {
		got, err := FormatNumber(tt.value, "0.0e0", nil)
		if err != nil || got != tt.want {
			t.Errorf("FormatNumber(%v, 0.0e0) = %q, %v; want %q", tt.value, got, err, tt.want)
		}
	}
}

// TestFormatNumberPictureErrors: each rule of F&O §4.7.3 has its code
// and jsonata-js's message.
func TestFormatNumberPictureErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		picture, code string
	}{
		{"#;#;#", "D3080"}, {"#.#.#", "D3081"}, {"#%%", "D3082"}, {"#\u2030\u2030", "D3083"}, {"#%\u2030", "D3084"},
		{"a", "D3085"}, {"#a#", "D3086"}, {"#,.0", "D3087"}, {"#,", "D3088"}, {"#,,#", "D3089"}, {"0#", "D3090"},
		{"0.#0", "D3091"}, {"0%e0", "D3092"}, {"0e", "D3093"},
	}
	for _, tt := range tests {
		_, err := FormatNumber(1, tt.picture, nil)
		var e *Error
		if !errors.As(err, &e) || e.Code != tt.code || e.Message != numberPictureMessages[tt.code] {
			t.Errorf("FormatNumber(1, %q): error %v, want %s", tt.picture, err, tt.code)
		}
	}
}

func TestRoundHalfEven(t *testing.T) {
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
		if got := roundHalfEven(tt.in, tt.prec); got != tt.want {
			t.Errorf("roundHalfEven(%v, %d) = %v, want %v", tt.in, tt.prec, got, tt.want)
		}
	}
}
