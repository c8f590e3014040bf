package js

import (
	"math"
	"math/big"
	"sync"
)

// powPrec is the working precision of Pow, in bits: enough that the
// rounded result is the correctly rounded power.
const powPrec = 192

// Pow is JavaScript's Math.pow(x, y): for finite x and y the correctly
// rounded power, which V8's Math.pow is within an ulp of and agrees with
// on exact results (Go's math.Pow is less accurate).
func Pow(x, y float64) float64 {
	switch {
	case y == 0:
		return 1
	case math.IsNaN(x) || math.IsNaN(y):
		return math.NaN()
	case math.IsInf(y, 0) && math.Abs(x) == 1:
		return math.NaN() // unlike C's pow, JavaScript's is NaN here
	case math.IsInf(x, 0) || math.IsInf(y, 0):
		return math.Pow(x, y)
	case x == 1:
		return 1
	case x == 0:
		if y < 0 {
			return math.Copysign(math.Inf(1), oddPowerSign(x, y))
		}
		return math.Copysign(0, oddPowerSign(x, y))
	case x < 0 && y != math.Trunc(y):
		return math.NaN()
	}
	t := bigFloat(y)
	t.Mul(t, bigLn(bigFloat(math.Abs(x))))
	var r float64
	switch tf, _ := t.Float64(); {
	case tf > 1000:
		r = math.Inf(1)
	case tf < -1000:
		r = 0
	default:
		r, _ = bigExp(t).Float64()
	}
	return math.Copysign(r, oddPowerSign(x, y))
}

// oddPowerSign is -1 when x is negative (or -0) and y an odd integer.
func oddPowerSign(x, y float64) float64 {
	if math.Signbit(x) && math.Mod(y, 2) != 0 && y == math.Trunc(y) {
		return -1
	}
	return 1
}

func bigFloat(x float64) *big.Float {
	return new(big.Float).SetPrec(powPrec).SetFloat64(x)
}

// bigLn2 is ln 2 = 2·atanh(1/3).
var bigLn2 = sync.OnceValue(func() *big.Float {
	third := bigFloat(1)
	return twoAtanh(third.Quo(third, bigFloat(3)))
})

// twoAtanh is 2·atanh(z) = 2(z + z³/3 + z⁵/5 + …) for small |z|.
func twoAtanh(z *big.Float) *big.Float {
	sum := new(big.Float).SetPrec(powPrec).Set(z)
	z2 := new(big.Float).SetPrec(powPrec).Mul(z, z)
	power := new(big.Float).SetPrec(powPrec).Set(z)
	term := new(big.Float).SetPrec(powPrec)
	for n := 3; ; n += 2 {
		power.Mul(power, z2)
		term.Quo(power, bigFloat(float64(n)))
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -powPrec-8 {
			break
		}
		sum.Add(sum, term)
	}
	return sum.Mul(sum, bigFloat(2))
}

// bigLn is ln x for x > 0: x = m·2^e with m in [√½, √2), so
// ln x = 2·atanh((m-1)/(m+1)) + e·ln 2.
func bigLn(x *big.Float) *big.Float {
	m := new(big.Float).SetPrec(powPrec)
	e := x.MantExp(m)
	if m.Cmp(bigFloat(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	num := new(big.Float).SetPrec(powPrec).Sub(m, bigFloat(1))
	den := new(big.Float).SetPrec(powPrec).Add(m, bigFloat(1))
	r := twoAtanh(num.Quo(num, den))
	k := bigFloat(float64(e))
	return r.Add(r, k.Mul(k, bigLn2()))
}

// bigExp is e^t for |t| ≤ 1000: t = k·ln 2 + r, and e^r from its Taylor
// series on r/1024, squared ten times.
func bigExp(t *big.Float) *big.Float {
	q := new(big.Float).SetPrec(powPrec).Quo(t, bigLn2())
	qf, _ := q.Float64()
	k := math.Round(qf)
	r := bigFloat(k)
	r.Sub(t, r.Mul(r, bigLn2()))
	r.SetMantExp(r, -10)
	sum, term := bigFloat(1), bigFloat(1)
	for n := 1; ; n++ {
		term.Mul(term, r)
		term.Quo(term, bigFloat(float64(n)))
		if term.Sign() == 0 || term.MantExp(nil) < -powPrec-8 {
			break
		}
		sum.Add(sum, term)
	}
	for range 10 {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}
