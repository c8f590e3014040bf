package picture

import (
	"math"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
)

// FormatNumber is $formatNumber(value, picture, symbols): value written
// to a decimal picture (F&O 3.1 §4.7) such as "#,##0.00", "0.0e0" or
// "#%". symbols (nil for none) overrides the decimal format's properties
// by their F&O names: "decimal-separator", "grouping-separator",
// "exponent-separator", "infinity", "minus-sign", "NaN", "percent",
// "per-mille", "zero-digit", "digit" and "pattern-separator". A bad
// picture is an *Error D3080 to D3093.
func FormatNumber(value float64, picture string, symbols map[string]string) (string, error) {
	f := newDecimalFormat(symbols)
	subs := js.String(picture).Split(f.pattern)
	if len(subs) > 2 {
		return "", numberPictureError("D3080")
	}
	parts := make([]*subPicture, len(subs))
	for i, s := range subs {
		p, ok := f.splitSubPicture(s)
		if !ok {
			return "", numberPictureError("D3085")
		}
		parts[i] = p
	}
	layouts := make([]*numberLayout, len(parts))
	for _, p := range parts {
		if err := f.validate(p); err != nil {
			return "", err
		}
	}
	for i, p := range parts {
		layouts[i] = f.analyse(p)
	}
	if len(layouts) == 1 {
		neg := *layouts[0]
		neg.prefix = js.Concat(f.minus, neg.prefix)
		layouts = append(layouts, &neg)
	}
	l := layouts[0]
	if !(value >= 0) {
		l = layouts[1]
	}
	return f.write(l, value), nil
}

// write formats value to layout l (F&O §4.7.5, as jsonata-js does it).
func (f *decimalFormat) write(l *numberLayout, value float64) string {
	adjusted := value
	if l.picture.Contains(f.percent) {
		adjusted = value * 100
	} else if l.picture.Contains(f.perMille) {
		adjusted = value * 1000
	}
	mantissa, exponent, hasExponent := adjusted, 0.0, l.minExponent != 0
	if hasExponent {
		maxM, minM := math.Pow(10, float64(l.scaling)), math.Pow(10, float64(l.scaling-1))
		// jsonata-js never stops for zero or a negative number; stop at
		// the limits of float64 instead.
		for mantissa < minM && mantissa > 0 && exponent > -400 {
			mantissa *= 10
			exponent--
		}
		for mantissa > maxM && exponent < 400 {
			mantissa /= 10
			exponent++
		}
	}
	rounded := roundHalfEven(mantissa, l.maxFraction)
	s := f.digits(rounded, l.maxFraction)
	if dp := s.IndexOf(js.String("."), 0); dp == -1 {
		s = js.Concat(s, f.decimal)
	} else {
		s = js.Concat(s[:dp], f.decimal, s[dp+1:])
	}
	for len(s) > 0 && s.CharAt(0).Equal(f.zero) {
		s = s[1:]
	}
	for len(s) > 0 && s.CharAt(len(s)-1).Equal(f.zero) {
		s = s[:len(s)-1]
	}
	dp := s.IndexOf(f.decimal, 0)
	padLeft := l.minInteger - dp
	padRight := l.minFraction - (len(s) - dp - 1)
	s = js.Concat(f.zero.Repeat(padLeft), s, f.zero.Repeat(padRight))
	dp = s.IndexOf(f.decimal, 0)
	if l.regularGroups > 0 {
		groups := (dp - 1) / l.regularGroups
		if dp-1 < 0 {
			groups = 0
		}
		for g := 1; g <= groups; g++ {
			at := dp - g*l.regularGroups
			s = js.Concat(s.Slice(0, at), f.grouping, s.Slice(at, len(s)))
		}
	} else {
		for _, pos := range l.integerGroups {
			s = js.Concat(s.Slice(0, dp-pos), f.grouping, s.Slice(dp-pos, len(s)))
			dp++
		}
	}
	dp = s.IndexOf(f.decimal, 0)
	for _, pos := range l.fractionGroups {
		s = js.Concat(s.Slice(0, pos+dp+1), f.grouping, s.Slice(pos+dp+1, len(s)))
	}
	dp = s.IndexOf(f.decimal, 0)
	if !l.picture.Contains(f.decimal) || dp == len(s)-1 {
		s = s.Substring(0, len(s)-1)
	}
	if hasExponent {
		e := f.digits(exponent, 0)
		e = js.Concat(f.zero.Repeat(l.minExponent-len(e)), e)
		sign := js.String(nil)
		if exponent < 0 {
			sign = f.minus
		}
		s = js.Concat(s, f.exponent, sign, e)
	}
	return js.Concat(l.prefix, s, l.suffix).String()
}

// digits is Math.abs(v).toFixed(dp) in the format's digit family.
func (f *decimalFormat) digits(v float64, dp int) js.String {
	s := js.String(js.ToFixed(math.Abs(v), dp))
	if f.zero.Equal(js.String("0")) {
		return s
	}
	out := make(js.String, 0, len(s))
	for _, r := range s {
		switch {
		case r < '0' || r > '9':
			out = append(out, r)
		case len(f.family) > 0: // an empty zero-digit has no digits at all
			out = append(out, f.family[r-'0'][0])
		}
	}
	return out
}

// roundHalfEven is jsonata-js's $round(f, precision): the decimal point
// is shifted in the decimal representation, then halves go to even.
func roundHalfEven(f float64, precision int) float64 {
	if precision != 0 {
		f = js.ShiftPoint(f, float64(precision))
	}
	r := math.Floor(f)
	if f-r >= 0.5 {
		r++ // Math.round: halves up
	}
	if math.Abs(r-f) == 0.5 && math.Abs(math.Mod(r, 2)) == 1 {
		r--
	}
	if precision != 0 {
		r = js.ShiftPoint(r, -float64(precision))
	}
	return r
}
