package lang

import (
	"math"
	"math/big"
	"sync"
)

// fnPowPrec is the working precision of fnPow, in bits: enough that the
// rounded result is the correctly rounded power.
const fnPowPrec = 192

// fnPow is x to the power y for finite x and y, correctly rounded.
// JavaScript's Math.pow (V8) is within an ulp of it and agrees on exact
// results; Go's math.Pow is less accurate.
func fnPow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case x == 0:
		if y < 0 {
			return math.Copysign(math.Inf(1), fnOddPowerSign(x, y))
		}
		return math.Copysign(0, fnOddPowerSign(x, y))
	case x < 0 && y != math.Trunc(y):
		return math.NaN()
	}
	t := fnBig(y)
	t.Mul(t, fnLn(fnBig(math.Abs(x))))
	var r float64
	switch tf, _ := t.Float64(); {
	case tf > 1000:
		r = math.Inf(1)
	case tf < -1000:
		r = 0
	default:
		r, _ = fnExp(t).Float64()
	}
	return math.Copysign(r, fnOddPowerSign(x, y))
}

// fnOddPowerSign is -1 when x is negative (or -0) and y an odd integer.
func fnOddPowerSign(x, y float64) float64 {
	if math.Signbit(x) && math.Mod(y, 2) != 0 && y == math.Trunc(y) {
		return -1
	}
	return 1
}

func fnBig(x float64) *big.Float {
	return new(big.Float).SetPrec(fnPowPrec).SetFloat64(x)
}

// fnLn2 is ln 2 = 2·atanh(1/3).
var fnLn2 = sync.OnceValue(func() *big.Float {
	third := fnBig(1)
	return fnTwoAtanh(third.Quo(third, fnBig(3)))
})

// fnTwoAtanh is 2·atanh(z) = 2(z + z³/3 + z⁵/5 + …) for small |z|.
func fnTwoAtanh(z *big.Float) *big.Float {
	sum := new(big.Float).SetPrec(fnPowPrec).Set(z)
	z2 := new(big.Float).SetPrec(fnPowPrec).Mul(z, z)
	power := new(big.Float).SetPrec(fnPowPrec).Set(z)
	term := new(big.Float).SetPrec(fnPowPrec)
	for n := 3; ; n += 2 {
		power.Mul(power, z2)
		term.Quo(power, fnBig(float64(n)))
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -fnPowPrec-8 {
			break
		}
		sum.Add(sum, term)
	}
	return sum.Mul(sum, fnBig(2))
}

// fnLn is ln x for x > 0: x = m·2^e with m in [√½, √2), so
// ln x = 2·atanh((m-1)/(m+1)) + e·ln 2.
func fnLn(x *big.Float) *big.Float {
	m := new(big.Float).SetPrec(fnPowPrec)
	e := x.MantExp(m)
	if m.Cmp(fnBig(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	num := new(big.Float).SetPrec(fnPowPrec).Sub(m, fnBig(1))
	den := new(big.Float).SetPrec(fnPowPrec).Add(m, fnBig(1))
	r := fnTwoAtanh(num.Quo(num, den))
	k := fnBig(float64(e))
	return r.Add(r, k.Mul(k, fnLn2()))
}

// fnExp is e^t for |t| ≤ 1000: t = k·ln 2 + r, and e^r from its Taylor
// series on r/1024, squared ten times.
func fnExp(t *big.Float) *big.Float {
	q := new(big.Float).SetPrec(fnPowPrec).Quo(t, fnLn2())
	qf, _ := q.Float64()
	k := math.Round(qf)
	r := fnBig(k)
	r.Sub(t, r.Mul(r, fnLn2()))
	r.SetMantExp(r, -10)
	sum, term := fnBig(1), fnBig(1)
	for n := 1; ; n++ {
		term.Mul(term, r)
		term.Quo(term, fnBig(float64(n)))
		if term.Sign() == 0 || term.MantExp(nil) < -fnPowPrec-8 {
			break
		}
		sum.Add(sum, term)
	}
	for range 10 {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}
