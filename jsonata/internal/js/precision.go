package js

import (
	"math"
	"strconv"
	"strings"
)

// ToPrecision15 is JavaScript's Number(f.toPrecision(15)): f rounded to
// 15 significant digits, a half rounding away from zero. jsonata-js
// applies it to every number it turns into JSON text.
func ToPrecision15(f float64) float64 {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	shortest, _, _ := strings.Cut(strconv.FormatFloat(math.Abs(f), 'e', -1, 64), "e")
	if len(shortest) <= 16 { // "d.dddddddddddddd": 15 digits or fewer
		return f
	}
	// The 16th digit of the exact value decides; 25 digits settle it
	// unless they sit on a rounding boundary, where the exact expansion
	// (at most 767 significant digits) is used.
	long := strconv.FormatFloat(math.Abs(f), 'e', 24, 64)
	if d := long[16:26]; d == "5000000000" || d == "4999999999" {
		long = strconv.FormatFloat(math.Abs(f), 'e', 767, 64)
	}
	mant, exp, _ := strings.Cut(long, "e")
	digits := []byte(mant[:1] + mant[2:16])
	if mant[16] >= '5' {
		i := len(digits) - 1
		for ; i >= 0 && digits[i] == '9'; i-- {
			digits[i] = '0'
		}
		if i < 0 {
			digits = append([]byte{'1'}, digits...)
			e, _ := strconv.Atoi(exp)
			exp = strconv.Itoa(e + 1)
		} else {
			digits[i]++
		}
	}
	r, _ := strconv.ParseFloat(string(digits[:1])+"."+string(digits[1:15])+"e"+exp, 64)
	if f < 0 {
		return -r
	}
	return r
}

// ShiftPoint is +(mantissa + "e" + (exponent + by)) on String(x), the
// way jsonata-js's round moves the decimal point: x times 10^by, computed
// in decimal. Infinity and NaN come out as NaN, as that text does.
func ShiftPoint(x, by float64) float64 {
	mant, exp, found := strings.Cut(NumberToString(x), "e")
	e := by
	if found {
		v, _ := strconv.ParseFloat(exp, 64)
		e += v
	}
	return ToNumber(mant + "e" + NumberToString(e))
}
