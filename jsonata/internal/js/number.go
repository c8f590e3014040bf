package js

import (
	"math"
	"strconv"
	"strings"
)

// NumberToString is JavaScript's String(f): the shortest digits that
// read back as f, in exponent form from 1e21 and below 1e-6 ("1e+21",
// "1e-7"), "NaN", "Infinity" and "-Infinity"; negative zero is "0".
func NumberToString(f float64) string {
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
	digits, n := shortestDigits(f)
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
	return sign + mant + exp + strconv.Itoa(absInt(n-1))
}

// shortestDigits returns the shortest decimal digits that round-trip f
// (f > 0) and n such that f = 0.digits × 10^n.
func shortestDigits(f float64) (string, int) {
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±x
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	return strings.Replace(mant, ".", "", 1), e + 1
}

func absInt(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// ToFixed is JavaScript's f.toFixed(dp) for 0 <= dp <= 100: the exact
// value rounded to dp decimals, halves away from zero, and String(f)
// from 1e21 on.
func ToFixed(f float64, dp int) string {
	if math.IsNaN(f) || math.Abs(f) >= 1e21 {
		return NumberToString(f)
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

// ToRadix is JavaScript's f.toString(radix) for an integral f and
// 2 <= radix <= 36, as V8 computes it: digits beyond double precision
// come out as zeros.
func ToRadix(f float64, radix int) string {
	if radix == 10 || math.IsNaN(f) || math.IsInf(f, 0) {
		return NumberToString(f)
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
