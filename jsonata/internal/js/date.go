package js

import "math"

// JavaScript Date arithmetic in UTC: time values are float64 milliseconds
// since the epoch, NaN for an invalid date, and every field of an invalid
// date is NaN.

const (
	// MsPerDay is the number of milliseconds in a day.
	MsPerDay = 86400000
	// maxTime is the largest time value a Date holds, in either direction.
	maxTime = 8.64e15
)

// TimeClip is ECMAScript TimeClip: NaN outside ±8.64e15, else t truncated
// to an integer (never negative zero).
func TimeClip(t float64) float64 {
	if math.IsNaN(t) || math.Abs(t) > maxTime {
		return math.NaN()
	}
	return math.Trunc(t) + 0 // +0 turns -0 into 0
}

// DateUTC is JavaScript's Date.UTC(y, m0, d, h, mi, s, ms), month m0
// counted from 0. Like JavaScript, years 0 to 99 mean 1900 to 1999 and
// fields overflow into the next unit (month 12 is January of the next
// year, day 0 the last day of the previous month).
func DateUTC(y, m0, d, h, mi, s, ms float64) float64 {
	if !math.IsNaN(y) {
		if yi := math.Trunc(y); yi >= 0 && yi <= 99 {
			y = 1900 + yi
		}
	}
	day := MakeDay(y, m0, d)
	tm := math.Trunc(h)*3600000 + math.Trunc(mi)*60000 + math.Trunc(s)*1000 + math.Trunc(ms)
	return TimeClip(day*MsPerDay + tm)
}

// MakeDay is ECMAScript MakeDay: the number of days from 1970-01-01 to
// day d (from 1) of month m0 (from 0, overflowing into years) of year y;
// NaN when a field is not finite or the year is out of range.
func MakeDay(y, m0, d float64) float64 {
	if math.IsNaN(y+m0+d) || math.IsInf(y+m0+d, 0) {
		return math.NaN()
	}
	y, m0, d = math.Trunc(y), math.Trunc(m0), math.Trunc(d)
	ym := y + math.Floor(m0/12)
	mn := math.Mod(m0, 12)
	if mn < 0 {
		mn += 12
	}
	if math.Abs(ym) > 400000 {
		return math.NaN()
	}
	return float64(daysFromCivil(int64(ym), int64(mn)+1, 1)) + d - 1
}

// daysFromCivil is the number of days from 1970-01-01 to the proleptic
// Gregorian date y-m-d (m from 1).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Date is a JavaScript Date, its fields read in UTC: a time value in
// milliseconds since the epoch, NaN for an invalid date.
type Date float64

// Valid reports whether t is a valid date (not NaN).
func (t Date) Valid() bool { return !math.IsNaN(float64(t)) }

func (t Date) civil() (y, m, d float64) {
	if !t.Valid() {
		return math.NaN(), math.NaN(), math.NaN()
	}
	yy, mm, dd := civilFromDays(int64(math.Floor(float64(t) / MsPerDay)))
	return float64(yy), float64(mm), float64(dd)
}

// FullYear is getUTCFullYear.
func (t Date) FullYear() float64 { y, _, _ := t.civil(); return y }

// Month is getUTCMonth: 0 for January to 11 for December.
func (t Date) Month() float64 { _, m, _ := t.civil(); return m - 1 }

// Date is getUTCDate: the day of the month, from 1.
func (t Date) Date() float64 { _, _, d := t.civil(); return d }

// Day is getUTCDay: the day of the week, 0 for Sunday.
func (t Date) Day() float64 {
	if !t.Valid() {
		return math.NaN()
	}
	return float64(((int64(math.Floor(float64(t)/MsPerDay))+4)%7 + 7) % 7)
}

// msOfDay is the milliseconds since midnight.
func (t Date) msOfDay() float64 {
	if !t.Valid() {
		return math.NaN()
	}
	r := math.Mod(float64(t), MsPerDay)
	if r < 0 {
		r += MsPerDay
	}
	return r
}

// Hours is getUTCHours.
func (t Date) Hours() float64 { return math.Floor(t.msOfDay() / 3600000) }

// Minutes is getUTCMinutes.
func (t Date) Minutes() float64 { return math.Floor(math.Mod(t.msOfDay(), 3600000) / 60000) }

// Seconds is getUTCSeconds.
func (t Date) Seconds() float64 { return math.Floor(math.Mod(t.msOfDay(), 60000) / 1000) }

// Milliseconds is getUTCMilliseconds.
func (t Date) Milliseconds() float64 { return math.Mod(t.msOfDay(), 1000) }
