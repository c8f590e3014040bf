package js

import (
	"math"
	"testing"
	"time"
)

// TestDateFields checks the UTC fields against the time package over
// many instants, before and after the epoch, and DateUTC back.
func TestDateFields(t *testing.T) {
	t.Parallel()
	for ms := int64(-62198755200000); ms < 253402300800000; ms += 7919 * 3600 * 1000 / 7 {
		want := time.UnixMilli(ms).UTC()
		d := Date(float64(ms))
		got := []float64{d.FullYear(), d.Month() + 1, d.Date(), d.Day(), d.Hours(), d.Minutes(), d.Seconds(), d.Milliseconds()}
		exp := []float64{float64(want.Year()), float64(want.Month()), float64(want.Day()), float64(want.Weekday()),
			float64(want.Hour()), float64(want.Minute()), float64(want.Second()), float64(want.Nanosecond() / 1e6)}
		for i := range got {
			if got[i] != exp[i] {
				t.Fatalf("%d: field %d = %v, want %v (%s)", ms, i, got[i], exp[i], want)
			}
		}
		back := DateUTC(exp[0], exp[1]-1, exp[2], exp[4], exp[5], exp[6], exp[7])
		if (exp[0] < 0 || exp[0] > 99) && back != float64(ms) {
			t.Fatalf("DateUTC(%s) = %v, want %d", want, back, ms)
		}
	}
}

func TestDateUTCQuirks(t *testing.T) {
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
		got := DateUTC(tt.y, tt.m, tt.d, tt.h, tt.mi, tt.s, tt.ms)
		if !sameNumber(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestInvalidDate(t *testing.T) {
	t.Parallel()
	d := Date(math.NaN())
	if d.Valid() {
		t.Error("Date(NaN).Valid() = true")
	}
	for i, f := range []float64{d.FullYear(), d.Month(), d.Date(), d.Day(), d.Hours(), d.Milliseconds()} {
		if !math.IsNaN(f) {
			t.Errorf("field %d of an invalid date = %v, want NaN", i, f)
		}
	}
}

func TestTimeClip(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want float64 }{
		{1.9, 1}, {-1.9, -1}, {math.Copysign(0, -1), 0}, {8.64e15, 8.64e15}, {-8.64e15 - 1, math.NaN()}, {math.Inf(1), math.NaN()},
	}
	for _, tt := range tests {
		got := TimeClip(tt.in)
		if !sameNumber(got, tt.want) || math.Signbit(got) != math.Signbit(tt.want) {
			t.Errorf("TimeClip(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
