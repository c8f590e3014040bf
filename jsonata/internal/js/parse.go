package js

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// numeral is a decimal numeral as Number() reads one, white space aside.
var numeral = regexp.MustCompile(`^[+-]?(Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)$`)

// ToNumber is JavaScript's Number(s): white space aside, "" is 0, a
// decimal numeral or Infinity (signed) reads as its value, a 0x, 0o or
// 0b literal in its radix, anything else is NaN.
func ToNumber(s string) float64 {
	s = strings.Trim(s, Space)
	if s == "" {
		return 0
	}
	if len(s) >= 2 && s[0] == '0' && strings.ContainsRune("xXoObB", rune(s[1])) {
		return radixLiteral(s)
	}
	if !numeral.MatchString(s) {
		return math.NaN()
	}
	if strings.HasSuffix(s, "Infinity") {
		if s[0] == '-' {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// radixLiteral reads a 0x, 0o or 0b literal; NaN when what follows the
// prefix is not a run of digits of its radix.
func radixLiteral(s string) float64 {
	base := map[byte]int{'x': 16, 'X': 16, 'o': 8, 'O': 8, 'b': 2, 'B': 2}[s[1]]
	n, ok := new(big.Int).SetString(s[2:], base)
	if !ok || strings.ContainsAny(s[2:], "+-_") {
		return math.NaN()
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return f
}

// ParseInt is JavaScript's parseInt(s) with no radix: leading white
// space, a sign, "0x" for hexadecimal, then the longest run of digits;
// NaN when there are none. Unlike JavaScript it also skips U+0085 as
// white space.
func ParseInt(s string) float64 {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
	neg, s := cutSign(s)
	radix := 10
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		radix, s = 16, s[2:]
	}
	return readDigits(s, radix, neg)
}

// ParseDecimalInt is JavaScript's parseInt(s, 10): leading white space,
// a sign, then the longest run of decimal digits; NaN when there are
// none.
func ParseDecimalInt(s string) float64 {
	neg, s := cutSign(strings.TrimLeft(s, Space))
	return readDigits(s, 10, neg)
}

func cutSign(s string) (neg bool, rest string) {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[0] == '-', s[1:]
	}
	return false, s
}

// readDigits reads the digits in radix at the start of s; NaN when there
// are none.
func readDigits(s string, radix int, neg bool) float64 {
	end := 0
	for end < len(s) && digitValue(s[end]) < radix {
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
			v = v*float64(radix) + float64(digitValue(c))
		}
	}
	if neg {
		v = -v
	}
	return v
}

// digitValue is the value of an ASCII digit or letter in bases up to 36,
// or 99.
func digitValue(c byte) int {
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
