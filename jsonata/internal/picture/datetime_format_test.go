package picture

import (
	"errors"
	"math"
	"testing"
)

func TestFormatDateTime(t *testing.T) {
	t.Parallel()
	const at = 1521801216617 // 2018-03-23T10:33:36.617Z, a Friday
	tests := []struct {
		picture, zone, want string
	}{
		{ISO8601, "", "2018-03-23T10:33:36.617Z"},
		{ISO8601, "+0530", "2018-03-23T16:03:36.617+05:30"},
		{"[FNn], [D1o] [MNn,3-3] [Y]", "", "Friday, 23rd Mar 2018"},
		{"[h]:[m01] [PN] [z]", "-0500", "5:33 AM GMT-05:00"},
		{"[Y]-W[W01]-[F1]", "", "2018-W12-5"},
		{"[[[Y]]]", "", "[2018]"},
		{"", "", ""},
	}
	for _, tt := range tests {
		var zone Offset
		if tt.zone != "" {
			zone = ParseOffset(tt.zone)
		}
		got, err := FormatDateTime(at, tt.picture, zone)
		if err != nil || got != tt.want {
			t.Errorf("FormatDateTime(%q, %q) = %q, %v; want %q", tt.picture, tt.zone, got, err, tt.want)
		}
	}
}

func TestParseOffset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Offset
	}{
		{"+0530", Offset{5, 30}},
		{"0000", Offset{0, 0}},
		{"-0530", Offset{-6, -30}}, // jsonata-js floors the hours
	}
	for _, tt := range tests {
		if got := ParseOffset(tt.in); got != tt.want {
			t.Errorf("ParseOffset(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if got := ParseOffset("abc"); !math.IsNaN(got.Hours) || !math.IsNaN(got.Minutes) {
		t.Errorf(`ParseOffset("abc") = %v, want NaN fields`, got)
	}
}

func TestDateTimePictureErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		picture, code string
		value         any
	}{
		{"[Y", "D3135", nil},
		{"[Q]", "D3132", "Q"},
		{"[YNn]", "D3133", "Y"},
		{"[Z010101]", "D3134", 6.0},
		{"[ZI]", "D3134", nil},
		{"[Y0٠]", "D3131", nil},
	}
	for _, tt := range tests {
		_, err := FormatDateTime(0, tt.picture, Offset{})
		var e *Error
		if !errors.As(err, &e) || e.Code != tt.code || e.Value != tt.value {
			t.Errorf("FormatDateTime(0, %q): error %#v, want %s with value %v", tt.picture, err, tt.code, tt.value)
		}
	}
}
