package lang

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// jsonata-js's tests for strings $number accepts: a JSON-style decimal,
// or (loosely anchored, as written there) a hexadecimal, octal or binary
// literal, which JavaScript's Number() then reads — "0x1G" reads as NaN.
var (
	fnDecimalText = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([Ee][-+]?[0-9]+)?$`)
	fnRadixText   = regexp.MustCompile(`^(0[xX][0-9A-Fa-f]+)|(0[oO][0-7]+)|(0[bB][0-1]+)$`)
)

// fnNumber is $number(arg): numbers as they are, booleans as 1 and 0,
// numeric strings read; anything else is error D3030.
func fnNumber(c *Call, args []any) (any, error) {
	switch v := args[0].(type) {
	case undefined:
		return Undefined, nil
	case float64:
		return v, nil
	case bool:
		if v {
			return 1.0, nil
		}
		return 0.0, nil
	case string:
		if fnDecimalText.MatchString(v) {
			if f, _ := strconv.ParseFloat(v, 64); !math.IsInf(f, 0) {
				return f, nil
			}
		}
		if fnRadixText.MatchString(v) {
			return fnRadixNumber(v), nil
		}
	}
	return nil, fnError(c, "D3030", "Unable to cast value to a number: "+jsonStringify(args[0]), args[0])
}

// fnJSSpace is the white space JavaScript's Number() trims.
const fnJSSpace = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"

// fnRadixNumber is JavaScript's Number(s) for a string holding a 0x, 0o
// or 0b literal somewhere: the literal alone (white space aside) reads
// as its value, anything else as NaN.
func fnRadixNumber(s string) float64 {
	s = strings.Trim(s, fnJSSpace)
	if len(s) < 3 || s[0] != '0' {
		return math.NaN()
	}
	base := map[byte]int{'x': 16, 'X': 16, 'o': 8, 'O': 8, 'b': 2, 'B': 2}[s[1]]
	n, ok := new(big.Int).SetString(s[2:], base)
	if base == 0 || !ok || strings.ContainsAny(s[2:], "+-_") {
		return math.NaN()
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return f
}

// fnAbs is $abs(number).
func fnAbs(_ *Call, args []any) (any, error) {
	return fnNumeric(args[0], math.Abs), nil
}

// fnFloor is $floor(number).
func fnFloor(_ *Call, args []any) (any, error) {
	return fnNumeric(args[0], math.Floor), nil
}

// fnCeil is $ceil(number).
func fnCeil(_ *Call, args []any) (any, error) {
	return fnNumeric(args[0], math.Ceil), nil
}

func fnNumeric(v any, f func(float64) float64) any {
	if n, ok := v.(float64); ok {
		return f(n)
	}
	return Undefined
}

// fnRound is $round(number, precision): to precision decimal places
// (default 0, negative for tens, hundreds…), a half going to the even
// neighbour. Like jsonata-js it shifts the decimal point in the
// number's text, so 2.675 rounds to 2.68 at two places.
func fnRound(_ *Call, args []any) (any, error) {
	x, ok := args[0].(float64)
	if !ok {
		return Undefined, nil
	}
	precision, _ := args[1].(float64)
	shift := precision != 0 && precision == precision
	if shift {
		x = fnShiftPoint(x, precision)
	}
	r := math.Floor(x)
	if x-r >= 0.5 {
		r++ // JavaScript's Math.round: a half goes up
	}
	if math.Abs(r-x) == 0.5 && math.Abs(math.Mod(r, 2)) == 1 {
		r--
	}
	if shift {
		r = fnShiftPoint(r, -precision)
	}
	if r == 0 {
		r = 0 // no negative zero in JSON
	}
	return r, nil
}

// fnShiftPoint is +(mantissa + "e" + (exponent + by)) on JavaScript's
// String(x): x times 10^by, computed in decimal.
func fnShiftPoint(x, by float64) float64 {
	mant, exp, found := strings.Cut(fmtJSNumber(x), "e")
	e := by
	if found {
		v, _ := strconv.ParseFloat(exp, 64)
		e += v
	}
	return fnJSToNumber(mant + "e" + fmtJSNumber(e))
}

var fnJSNumeral = regexp.MustCompile(`^[+-]?(Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)$`)

// fnJSToNumber is JavaScript's Number(s) for decimal text: NaN unless s
// is a decimal numeral or Infinity.
func fnJSToNumber(s string) float64 {
	s = strings.Trim(s, fnJSSpace)
	if !fnJSNumeral.MatchString(s) {
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

// fnSqrt is $sqrt(number); a negative number is error D3060.
func fnSqrt(c *Call, args []any) (any, error) {
	x, ok := args[0].(float64)
	if !ok {
		return Undefined, nil
	}
	if x < 0 {
		return nil, fnError(c, "D3060", "The sqrt function cannot be applied to a negative number: "+fmtJSNumber(x), x)
	}
	return math.Sqrt(x), nil
}

// fnPowerFn is $power(base, exponent); a result that is not a finite
// number is error D3061.
func fnPowerFn(c *Call, args []any) (any, error) {
	x, ok := args[0].(float64)
	if !ok {
		return Undefined, nil
	}
	y, _ := args[1].(float64)
	r := fnPow(x, y)
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return nil, fnError(c, "D3061", "The power function has resulted in a value that cannot be represented as a JSON number: base="+
			fmtJSNumber(x)+", exponent="+fmtJSNumber(y), x)
	}
	return r, nil
}

// fnRandom is $random(): a number in [0, 1) from the evaluation's source.
func fnRandom(c *Call, _ []any) (any, error) {
	return c.Random(), nil
}
