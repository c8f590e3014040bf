package lang

import (
	"math"
	"strings"

	"github.com/sfnapprovals/approvals/workflow/sfnlocal/internal/jsonvalue"
)

// fmtFormatNumber is $formatNumber(value, picture, options): value
// written to an XPath decimal picture such as "#,##0.00", "0.0e0" or
// "#%", with options (nil for none) overriding the decimal format's
// symbols. Errors are D3080-D3093 for a bad picture.
func fmtFormatNumber(value float64, picture string, options *jsonvalue.Object) (string, error) {
	f := newDecimalFormat(options)
	subs := jsStr(picture).split(f.pattern)
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
		neg.prefix = jsConcat(f.minus, neg.prefix)
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
	if l.picture.contains(f.percent) {
		adjusted = value * 100
	} else if l.picture.contains(f.perMille) {
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
	rounded := fmtRoundHalfEven(mantissa, l.maxFraction)
	s := f.digits(rounded, l.maxFraction)
	if dp := s.indexOf(jsStr("."), 0); dp == -1 {
		s = jsConcat(s, f.decimal)
	} else {
		s = jsConcat(s[:dp], f.decimal, s[dp+1:])
	}
	for len(s) > 0 && s.charAt(0).equal(f.zero) {
		s = s[1:]
	}
	for len(s) > 0 && s.charAt(len(s)-1).equal(f.zero) {
		s = s[:len(s)-1]
	}
	dp := s.indexOf(f.decimal, 0)
	padLeft := l.minInteger - dp
	padRight := l.minFraction - (len(s) - dp - 1)
	s = jsConcat(jsRepeat(f.zero, padLeft), s, jsRepeat(f.zero, padRight))
	dp = s.indexOf(f.decimal, 0)
	if l.regularGroups > 0 {
		groups := (dp - 1) / l.regularGroups
		if dp-1 < 0 {
			groups = 0
		}
		for g := 1; g <= groups; g++ {
			at := dp - g*l.regularGroups
			s = jsConcat(s.slice(0, at), f.grouping, s.slice(at, len(s)))
		}
	} else {
		for _, pos := range l.integerGroups {
			s = jsConcat(s.slice(0, dp-pos), f.grouping, s.slice(dp-pos, len(s)))
			dp++
		}
	}
	dp = s.indexOf(f.decimal, 0)
	for _, pos := range l.fractionGroups {
		s = jsConcat(s.slice(0, pos+dp+1), f.grouping, s.slice(pos+dp+1, len(s)))
	}
	dp = s.indexOf(f.decimal, 0)
	if !l.picture.contains(f.decimal) || dp == len(s)-1 {
		s = s.substring(0, len(s)-1)
	}
	if hasExponent {
		e := f.digits(exponent, 0)
		e = jsConcat(jsRepeat(f.zero, l.minExponent-len(e)), e)
		sign := jsStr(nil)
		if exponent < 0 {
			sign = f.minus
		}
		s = jsConcat(s, f.exponent, sign, e)
	}
	return jsConcat(l.prefix, s, l.suffix).String()
}

// digits is Math.abs(v).toFixed(dp) in the format's digit family.
func (f *decimalFormat) digits(v float64, dp int) jsStr {
	s := jsStr(fmtToFixed(math.Abs(v), dp))
	if f.zero.equal(jsStr("0")) {
		return s
	}
	out := make(jsStr, 0, len(s))
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

func jsRepeat(s jsStr, n int) jsStr {
	if n <= 0 {
		return nil
	}
	return jsStr(strings.Repeat(s.String(), n))
}
