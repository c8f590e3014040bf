package lang

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// The formatting functions of jsonata-js build their answers from
// JavaScript's number-to-string conversions, quirks included (1e21 prints
// as "1e+21"); these helpers reproduce those conversions.

// fmtJSNumber is JavaScript's String(f).
func fmtJSNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	digits, n := fmtShortestDigits(f)
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	exp := "e+"
	if n-1 < 0 {
		exp = "e-"
	}
	mant := digits[:1]
	if k > 1 {
		mant += "." + digits[1:]
	}
	return sign + mant + exp + strconv.Itoa(fmtAbsInt(n-1))
}

// fmtShortestDigits returns the shortest decimal digits that round-trip f
// (f > 0) and n such that f = 0.digits × 10^n.
func fmtShortestDigits(f float64) (string, int) {
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±x
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	return strings.Replace(mant, ".", "", 1), e + 1
}

func fmtAbsInt(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// fmtToFixed is JavaScript's f.toFixed(dp): exact decimal rounding, halves
// away from zero, and String(f) from 1e21 on.
func fmtToFixed(f float64, dp int) string {
	if math.IsNaN(f) || math.Abs(f) >= 1e21 {
		return fmtJSNumber(f)
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	exact := strconv.FormatFloat(f, 'f', 1100, 64)
	point := strings.IndexByte(exact, '.')
	keep := []byte(exact[:point] + exact[point+1:point+1+dp])
	if exact[point+1+dp] >= '5' {
		i := len(keep) - 1
		for ; i >= 0 && keep[i] == '9'; i-- {
			keep[i] = '0'
		}
		if i < 0 {
			keep = append([]byte{'1'}, keep...)
		} else {
			keep[i]++
		}
	}
	intLen := len(keep) - dp
	out := string(keep[:intLen])
	if dp > 0 {
		out += "." + string(keep[intLen:])
	}
	return sign + out
}

// fmtRoundHalfEven is jsonata-js's $round(f, precision): the decimal point
// is shifted in the decimal representation, then halves go to even.
func fmtRoundHalfEven(f float64, precision int) float64 {
	if precision != 0 {
		f = fmtShiftDecimal(f, precision)
	}
	r := math.Floor(f)
	if f-r >= 0.5 {
		r++ // Math.round: halves up
	}
	if math.Abs(r-f) == 0.5 && math.Abs(math.Mod(r, 2)) == 1 {
		r--
	}
	if precision != 0 {
		r = fmtShiftDecimal(r, -precision)
	}
	return r
}

// fmtShiftDecimal multiplies f by 10^by through its decimal representation,
// as +(digits + "e" + exponent) does in JavaScript.
func fmtShiftDecimal(f float64, by int) float64 {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	v, _ := strconv.ParseFloat(mant+"e"+strconv.Itoa(e+by), 64)
	return v
}

// fmtParseInt is JavaScript's parseInt(s) with no radix: leading white
// space, a sign, "0x" for hexadecimal, then the longest run of digits;
// NaN when there are none.
func fmtParseInt(s string) float64 {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	radix := 10
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		radix, s = 16, s[2:]
	}
	end := 0
	for end < len(s) && fmtDigitValue(s[end]) < radix {
		end++
	}
	if end == 0 {
		return math.NaN()
	}
	var v float64
	if radix == 10 {
		v, _ = strconv.ParseFloat(s[:end], 64)
	} else {
		for _, c := range []byte(s[:end]) {
			v = v*16 + float64(fmtDigitValue(c))
		}
	}
	if neg {
		v = -v
	}
	return v
}

// fmtDigitValue is the value of an ASCII digit or letter in bases up to 36,
// or 99.
func fmtDigitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// fmtIntegerToRadix is JavaScript's f.toString(radix) for an integral f, as
// V8 computes it: digits beyond double precision come out as zeros.
func fmtIntegerToRadix(f float64, radix int) string {
	if radix == 10 || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmtJSNumber(f)
	}
	neg := f < 0
	if neg {
		f = -f
	}
	const chars = "0123456789abcdefghijklmnopqrstuvwxyz"
	var rev []byte
	r := float64(radix)
	for f/r >= 1<<53 {
		f /= r
		rev = append(rev, '0')
	}
	for {
		rem := math.Mod(f, r)
		rev = append(rev, chars[int(rem)])
		f = (f - rem) / r
		if f <= 0 {
			break
		}
	}
	if neg {
		rev = append(rev, '-')
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return string(rev)
}
