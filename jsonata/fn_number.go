package jsonata

import (
	"math"
	"regexp"
	"strconv"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
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
			return js.ToNumber(v), nil
		}
	}
	return nil, fnError(c, "D3030", "Unable to cast value to a number: "+jsonStringify(args[0]), args[0])
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
	r := roundHalfEven(x, precision)
	if r == 0 {
		r = 0 // no negative zero in JSON
	}
	return r, nil
}

// roundHalfEven is jsonata-js's round(x, precision), which $round and
// $formatBase use: x rounded to precision decimal places, a half going
// to the even neighbour.
func roundHalfEven(x, precision float64) float64 {
	shift := precision != 0 && precision == precision
	if shift {
		x = js.ShiftPoint(x, precision)
	}
	r := math.Floor(x)
	if x-r >= 0.5 {
		r++ // JavaScript's Math.round: a half goes up
	}
	if math.Abs(r-x) == 0.5 && math.Abs(math.Mod(r, 2)) == 1 {
		r--
	}
	if shift {
		r = js.ShiftPoint(r, -precision)
	}
	return r
}

// fnSqrt is $sqrt(number); a negative number is error D3060.
func fnSqrt(c *Call, args []any) (any, error) {
	x, ok := args[0].(float64)
	if !ok {
		return Undefined, nil
	}
	if x < 0 {
		return nil, fnError(c, "D3060", "The sqrt function cannot be applied to a negative number: "+js.NumberToString(x), x)
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
	y, ok := args[1].(float64)
	if !ok {
		y = math.NaN() // Math.pow(x, undefined)
	}
	r := js.Pow(x, y)
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return nil, fnError(c, "D3061", "The power function has resulted in a value that cannot be represented as a JSON number: base="+
			jsonStringify(args[0])+", exponent="+jsonStringify(args[1]), x)
	}
	return r, nil
}

// fnRandom is $random(): a number in [0, 1) from the evaluation's source.
func fnRandom(c *Call, _ []any) (any, error) {
	return c.Random(), nil
}
