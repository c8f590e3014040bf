package lang

import "math"

// fmtFormatBase is $formatBase(value, radix): value rounded (halves to
// even) and written in radix (10 when hasRadix is false; rounded too);
// D3100 unless 2 <= radix <= 36.
func fmtFormatBase(value, radix float64, hasRadix bool) (string, error) {
	value = fmtRoundHalfEven(value, 0)
	if !hasRadix {
		radix = 10
	} else {
		radix = fmtRoundHalfEven(radix, 0)
	}
	if radix < 2 || radix > 36 {
		return "", &Error{Code: "D3100", Value: radix,
			Message: "The radix of the formatBase function must be between 2 and 36.  It was given " + fmtJSONNumber(radix)}
	}
	return fmtIntegerToRadix(value, int(radix)), nil
}

// fmtJSONNumber is JavaScript's JSON.stringify of a number.
func fmtJSONNumber(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	return fmtJSNumber(f)
}
