package picture

import (
	"errors"
	"testing"
)

func TestParseDateTime(t *testing.T) {
	t.Parallel()
	const now = 1521801216617 // 2018-03-23T10:33:36.617Z
	tests := []struct {
		timestamp, picture string
		want               float64
		ok                 bool
	}{
		{"2018-03-23", "[Y0001]-[M01]-[D01]", 1521763200000, true},
		{"10:00", "[H]:[m]", 1521799200000, true}, // the date comes from now
		{"23 March 2018", "[D] [MNn] [Y]", 1521763200000, true},
		{"2018-083", "[Y]-[d]", 1521849600000, true}, // day 83 is 24 March
		{"12:30 pm", "[h]:[m] [P]", 1521808200000, true},
		{"2018-03-23T10:33:36+05:30", "[Y]-[M]-[D]T[H]:[m]:[s][Z]", 1521781416000, true},
		{"nope", "[H]:[m]", 0, false},
	}
	for _, tt := range tests {
		got, ok, err := ParseDateTime(tt.timestamp, tt.picture, now)
		if err != nil || ok != tt.ok || got != tt.want {
			t.Errorf("ParseDateTime(%q, %q) = %v, %v, %v; want %v, %v", tt.timestamp, tt.picture, got, ok, err, tt.want, tt.ok)
		}
	}
}

func TestParseDateTimeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		timestamp, picture, code string
	}{
		{"2018 30", "[Y] [m]", "D3136"}, // a gap between the given components
		{"x", "[Y", "D3135"},
		{"Monday", "[DNn]", "D3133"},
	}
	for _, tt := range tests {
		_, _, err := ParseDateTime(tt.timestamp, tt.picture, 0)
		var e *Error
		if !errors.As(err, &e) || e.Code != tt.code {
			t.Errorf("ParseDateTime(%q, %q): error %v, want %s", tt.timestamp, tt.picture, err, tt.code)
		}
	}
}

func TestParseISO(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want float64
	}{
		{"2018-03-23T10:33:36.617Z", 1521801216617},
		{"2018-03-23T10:33:36.617+01:00", 1521797616617},
		{"2018-03-23", 1521763200000},
		{"2018", 1514764800000},
		{"2018-02-31", 1520035200000}, // days overflow into the next month
		{"2018.5", 1525132800000},     // V8 reads the fraction as the month
	}
	for _, tt := range tests {
		if got, err := ParseISO(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseISO(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	var e *Error
	if _, err := ParseISO("yesterday"); !errors.As(err, &e) || e.Code != "D3110" || e.Value != "yesterday" {
		t.Errorf(`ParseISO("yesterday"): error %v, want D3110`, err)
	}
}
