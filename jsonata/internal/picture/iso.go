package picture

import (
	"math"
	"regexp"
	"strconv"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
)

// $toMillis without a picture: jsonata-js checks the timestamp against a
// loose ISO 8601 pattern (D3110 when it fails), then JavaScript's
// Date.parse reads it. Date.parse is reproduced for what the pattern lets
// through, as V8 reads it with the process in UTC: a date alone or with a
// time, "Z" or a "±HH:MM"/"±HHMM" offset, fraction digits after the
// third ignored, 24:00:00 allowed, days 1-31 in any month (overflowing
// into the next). V8 also reads a fraction after a date with no time as
// the next date field ("2018.5" is May 2018). Anything else is NaN.

var isoTimestampPattern = regexp.MustCompile(`^\d{4}(-[01]\d)*(-[0-3]\d)*(T[0-2]\d:[0-5]\d:[0-5]\d)*(\.\d+)?([+-][0-2]\d:?[0-5]\d|Z)?$`)

var isoTimestampFields = regexp.MustCompile(`^(\d{4})((?:-\d\d)*)((?:T\d\d:\d\d:\d\d)*)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$`)

// isoTimestampError is D3110 for a timestamp that is not ISO 8601.
func isoTimestampError(timestamp string) error {
	return &Error{Code: "D3110", Value: timestamp,
		Message: "The argument of the toMillis function must be an ISO 8601 formatted timestamp. Given " + js.Quote(timestamp)}
}

// ParseISO is $toMillis(timestamp) without a picture: milliseconds since
// the epoch, NaN for a timestamp that passes the pattern but is no valid
// date, and an *Error D3110 for one that does not pass it.
func ParseISO(timestamp string) (float64, error) {
	if !isoTimestampPattern.MatchString(timestamp) {
		return 0, isoTimestampError(timestamp)
	}
	f := isoTimestampFields.FindStringSubmatch(timestamp)
	year, _ := strconv.Atoi(f[1])
	date := f[2]
	if len(date) > 6 || len(f[3]) > 9 {
		return math.NaN(), nil
	}
	month, day := 1, 1
	if len(date) >= 3 {
		month, _ = strconv.Atoi(date[1:3])
	}
	if len(date) == 6 {
		day, _ = strconv.Atoi(date[4:6])
	}
	var hour, minute, second, ms int
	zone := f[5]
	switch {
	case f[3] != "":
		hour, _ = strconv.Atoi(f[3][1:3])
		minute, _ = strconv.Atoi(f[3][4:6])
		second, _ = strconv.Atoi(f[3][7:9])
		if frac := f[4]; frac != "" {
			ms, _ = strconv.Atoi((frac + "00")[:3])
		}
	case f[4] != "":
		// V8's legacy reading: the fraction is the next date field.
		n := math.Min(js.ParseInt(f[4]), 99)
		switch len(date) {
		case 0:
			month = int(n)
		case 3:
			day = int(n)
		default:
			return math.NaN(), nil
		}
		fallthrough
	default:
		if zone != "" && zone != "Z" {
			return math.NaN(), nil
		}
	}
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 24 ||
		(hour == 24 && (minute != 0 || second != 0 || ms != 0)) {
		return math.NaN(), nil
	}
	offset := 0
	if len(zone) > 1 {
		h, _ := strconv.Atoi(zone[1:3])
		m, _ := strconv.Atoi(zone[len(zone)-2:])
		if h > 23 {
			return math.NaN(), nil
		}
		offset = h*60 + m
		if zone[0] == '-' {
			offset = -offset
		}
	}
	days := js.MakeDay(float64(year), float64(month-1), float64(day))
	t := days*js.MsPerDay + float64(((hour*60+minute-offset)*60+second)*1000+ms)
	return js.TimeClip(t), nil
}
