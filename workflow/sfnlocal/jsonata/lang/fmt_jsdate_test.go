package lang

import (
	"math"
	"testing"
	"time"
)

// TestFmtDateFields checks the UTC fields against the time package over
// many instants, before and after the epoch.
func TestFmtDateFields(t *testing.T) {
	t.Parallel()
	for ms := int64(-62198755200000); ms < 253402300800000; ms += 7919 * 3600 * 1000 / 7 {
		want := time.UnixMilli(ms).UTC()
		d := fmtDate(float64(ms))
		got := []float64{d.year(), d.month0() + 1, d.date(), d.weekday(), d.hours(), d.minutes(), d.seconds(), d.millis()}
		exp := []float64{float64(want.Year()), float64(want.Month()), float64(want.Day()), float64(want.Weekday()),
			float64(want.Hour()), float64(want.Minute()), float64(want.Second()), float64(want.Nanosecond() / 1e6)}
		for i := range got {
			if got[i] != exp[i] {
				t.Fatalf("%d: field %d = %v, want %v (%s)", ms, i, got[i], exp[i], want)
			}
		}
		back := fmtDateUTC(exp[0], exp[1]-1, exp[2], exp[4], exp[5], exp[6], exp[7])
		if (exp[0] < 0 || exp[0] > 99) && back != float64(ms) {
			t.Fatalf("fmtDateUTC(%s) = %v, want %d", want, back, ms)
		}
	}
}

func TestFmtDateUTCQuirks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		y, m, d, h, mi, s, ms float64
		want                  float64
	}{
		{"two-digit year is 19xx", 18, 0, 1, 0, 0, 0, 0, -1640995200000},
		{"month overflows into the next year", 2017, 12, 1, 0, 0, 0, 0, 1514764800000},
		{"day 0 is the last of the previous month", 2018, 2, 0, 0, 0, 0, 0, 1519776000000},
		{"hours overflow", 2018, 0, 1, 24, 0, 0, 0, 1514851200000},
		{"NaN propagates", math.NaN(), 0, 1, 0, 0, 0, 0, math.NaN()},
		{"beyond TimeClip", 275760, 8, 14, 0, 0, 0, 0, math.NaN()},
		{"TimeClip limit", 275760, 8, 13, 0, 0, 0, 0, 8.64e15},
	}
	for _, tt := range tests {
		got := fmtDateUTC(tt.y, tt.m, tt.d, tt.h, tt.mi, tt.s, tt.ms)
		if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFmtDateNaN(t *testing.T) {
	t.Parallel()
	d := fmtDate(math.NaN())
	for i, f := range []float64{d.year(), d.month0(), d.date(), d.weekday(), d.hours(), d.millis()} {
		if !math.IsNaN(f) {
			t.Errorf("field %d of an invalid date = %v, want NaN", i, f)
		}
	}
}
