package picture

import (
	"errors"
	"testing"
)

func TestFormatInteger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value         float64
		picture, want string
	}{
		{1999, "I", "MCMXCIX"},
		{1999.9, "i", "mcmxcix"}, // rounded down
		{-12, "0000", "-0012"},
		{1234567, "#,##0", "1,234,567"},
		{1234567, "#,###,##0;o", "1,234,567th"},
		{12, "0;o", "12th"},
		{23, "0;o", "23rd"},
		{28, "a", "ab"},
		{123, "w", "one hundred and twenty-three"},
		{21, "Ww;o", "Twenty-First"},
		{42, "٠", "٤٢"},
	}
	for _, tt := range tests {
		got, err := FormatInteger(tt.value, tt.picture)
		if err != nil || got != tt.want {
			t.Errorf("FormatInteger(%v, %q) = %q, %v; want %q", tt.value, tt.picture, got, err, tt.want)
		}
	}
}

func TestIntegerPictureErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value         float64
		picture, code string
	}{
		{1, "#", "D3130"},
		{1, "0٠", "D3131"},
		{1.5e7, "I", ""}, // jsonata-js overflows its stack: a RangeError, no code
	}
	for _, tt := range tests {
		_, err := FormatInteger(tt.value, tt.picture)
		var e *Error
		if !errors.As(err, &e) || e.Code != tt.code {
			t.Errorf("FormatInteger(%v, %q): error %v, want %s", tt.value, tt.picture, err, tt.code)
		}
		if _, err := ParseInteger("1", tt.picture); tt.code != "" && !errors.As(err, &e) {
			t.Errorf("ParseInteger(1, %q): error %v, want %s", tt.picture, err, tt.code)
		}
	}
}
