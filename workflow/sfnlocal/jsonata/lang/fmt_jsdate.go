package lang

import "math"

// JavaScript Date arithmetic in UTC: time values are float64 milliseconds
// since the epoch, NaN for an invalid date, and every field of an invalid
// date is NaN. jsonata-js computes week numbers and parses pictures with
// Date.UTC, whose quirks (years 0-99 mean 1900-1999, fields overflow into
// the next unit) are reproduced here.

const (
	fmtMsPerDay    = 86400000
	fmtMaxTimeClip = 8.64e15
)

// fmtTimeClip is ECMAScript TimeClip: NaN outside ±8.64e15, else
// truncated to an integer.
func fmtTimeClip(t float64) float64 {
	if math.IsNaN(t) || math.Abs(t) > fmtMaxTimeClip {
		return math.NaN()
	}
	return math.Trunc(t) + 0 // +0 turns -0 into 0
}

// fmtDateUTC is JavaScript's Date.UTC(y, m0, d, h, mi, s, ms) with m0
// counted from 0.
func fmtDateUTC(y, m0, d, h, mi, s, ms float64) float64 {
	if !math.IsNaN(y) {
		if yi := math.Trunc(y); yi >= 0 && yi <= 99 {
			y = 1900 + yi
		}
	}
	day := fmtMakeDay(y, m0, d)
	tm := math.Trunc(h)*3600000 + math.Trunc(mi)*60000 + math.Trunc(s)*1000 + math.Trunc(ms)
	return fmtTimeClip(day*fmtMsPerDay + tm)
}

// fmtMakeDay is ECMAScript MakeDay: the day number of date d (from 1) of
// month m0 (from 0, overflowing into years) of year y.
func fmtMakeDay(y, m0, d float64) float64 {
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
	return float64(fmtDaysFromCivil(int64(ym), int64(mn)+1, 1)) + d - 1
}

// fmtDaysFromCivil is the number of days from 1970-01-01 to the proleptic
// Gregorian date y-m-d (m from 1).
func fmtDaysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := fmtFloorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// fmtCivilFromDays is the inverse of fmtDaysFromCivil.
func fmtCivilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := fmtFloorDiv(z, 146097)
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

func fmtFloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// fmtDate is a JavaScript Date read in UTC.
type fmtDate float64

func (t fmtDate) valid() bool { return !math.IsNaN(float64(t)) }

func (t fmtDate) civil() (y, m, d float64) {
	if !t.valid() {
		return math.NaN(), math.NaN(), math.NaN()
	}
	yy, mm, dd := fmtCivilFromDays(int64(math.Floor(float64(t) / fmtMsPerDay)))
	return float64(yy), float64(mm), float64(dd)
}

// year is getUTCFullYear.
func (t fmtDate) year() float64 { y, _, _ := t.civil(); return y }

// month0 is getUTCMonth (0-11).
func (t fmtDate) month0() float64 { _, m, _ := t.civil(); return m - 1 }

// date is getUTCDate (1-31).
func (t fmtDate) date() float64 { _, _, d := t.civil(); return d }

// weekday is getUTCDay (0 = Sunday).
func (t fmtDate) weekday() float64 {
	if !t.valid() {
		return math.NaN()
	}
	return float64(((int64(math.Floor(float64(t)/fmtMsPerDay))+4)%7 + 7) % 7)
}

// msOfDay is the milliseconds since midnight.
func (t fmtDate) msOfDay() float64 {
	if !t.valid() {
		return math.NaN()
	}
	r := math.Mod(float64(t), fmtMsPerDay)
	if r < 0 {
		r += fmtMsPerDay
	}
	return r
}

func (t fmtDate) hours() float64   { return math.Floor(t.msOfDay() / 3600000) }
func (t fmtDate) minutes() float64 { return math.Floor(math.Mod(t.msOfDay(), 3600000) / 60000) }
func (t fmtDate) seconds() float64 { return math.Floor(math.Mod(t.msOfDay(), 60000) / 1000) }
func (t fmtDate) millis() float64  { return math.Mod(t.msOfDay(), 1000) }
