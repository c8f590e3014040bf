package lang

import (
	"github.com/sfnapprovals/approvals/workflow/sfnlocal/internal/jsonvalue"
)

// The decimal format and picture analysis of $formatNumber (XPath
// fn:format-number, F&O 3.1 §4.7), including jsonata-js's departures from
// the spec: a sub-picture without a decimal separator takes its suffix as
// its fractional part, and the exponent is cut from the active part at
// its position in the whole sub-picture.

// decimalFormat holds the symbols of a decimal format.
type decimalFormat struct {
	decimal, grouping, exponent, infinity, minus, nan, percent, perMille, zero, digit, pattern jsStr
	family                                                                                     []jsStr // the ten digits from zero
	active                                                                                     []jsStr // characters with a meaning in a picture
}

var decimalFormatDefaults = [][2]string{
	{"decimal-separator", "."}, {"grouping-separator", ","}, {"exponent-separator", "e"},
	{"infinity", "Infinity"}, {"minus-sign", "-"}, {"NaN", "NaN"}, {"percent", "%"},
	{"per-mille", "\u2030"}, {"zero-digit", "0"}, {"digit", "#"}, {"pattern-separator", ";"},
}

// newDecimalFormat applies options (string values; others as
// JavaScript's String would print them) over the defaults.
func newDecimalFormat(options *jsonvalue.Object) *decimalFormat {
	props := map[string]string{}
	for _, kv := range decimalFormatDefaults {
		props[kv[0]] = kv[1]
	}
	options.Range(func(k string, v any) bool {
		props[k] = decimalOptionString(v)
		return true
	})
	f := &decimalFormat{
		decimal: jsStr(props["decimal-separator"]), grouping: jsStr(props["grouping-separator"]),
		exponent: jsStr(props["exponent-separator"]), infinity: jsStr(props["infinity"]),
		minus: jsStr(props["minus-sign"]), nan: jsStr(props["NaN"]), percent: jsStr(props["percent"]),
		perMille: jsStr(props["per-mille"]), zero: jsStr(props["zero-digit"]), digit: jsStr(props["digit"]),
		pattern: jsStr(props["pattern-separator"]),
	}
	if len(f.zero) > 0 {
		for d := rune(0); d < 10; d++ {
			f.family = append(f.family, jsStr{f.zero[0] + d})
		}
	}
	f.active = append(append([]jsStr{}, f.family...), f.decimal, f.exponent, f.grouping, f.digit, f.pattern)
	return f
}

func decimalOptionString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return fmtJSNumber(v)
	case bool:
		if v {
			return "true"
		}
		return "false"
	case nil:
		return "null"
	}
	return "[object Object]"
}

func jsMemberOf(set []jsStr, ch jsStr) bool {
	for _, s := range set {
		if s.equal(ch) {
			return true
		}
	}
	return false
}

func (f *decimalFormat) isDigit(ch jsStr) bool      { return jsMemberOf(f.family, ch) }
func (f *decimalFormat) isActive(ch jsStr) bool     { return jsMemberOf(f.active, ch) }
func (f *decimalFormat) isDigitOrOpt(ch jsStr) bool { return f.isDigit(ch) || ch.equal(f.digit) }

// countChars is how many characters of s satisfy pred.
func countChars(s jsStr, pred func(jsStr) bool) int {
	n := 0
	for i := range s {
		if pred(s[i : i+1]) {
			n++
		}
	}
	return n
}

// subPicture is one side of a picture ("positive;negative"), split.
type subPicture struct {
	whole, prefix, suffix, active, mantissa, integer, fraction jsStr
	exponent                                                   jsStr
	hasExponent                                                bool
}

// splitSubPicture splits a sub-picture into its parts; false when it has
// no active character (jsonata-js fails with a TypeError there).
func (f *decimalFormat) splitSubPicture(s jsStr) (*subPicture, bool) {
	first, last := -1, -1
	for i := range s {
		if ch := s[i : i+1]; f.isActive(ch) && !ch.equal(f.exponent) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil, false
	}
	p := &subPicture{whole: s, prefix: s[:first], suffix: s[last+1:]}
	p.active = s.substring(len(p.prefix), len(s)-len(p.suffix))
	expPos := s.indexOf(f.exponent, len(p.prefix))
	if expPos == -1 || expPos > len(s)-len(p.suffix) {
		p.mantissa = p.active
	} else {
		p.mantissa = p.active.substring(0, expPos)
		p.exponent, p.hasExponent = p.active.substring(expPos+1, len(p.active)), true
	}
	if dp := p.mantissa.indexOf(f.decimal, 0); dp == -1 {
		p.integer, p.fraction = p.mantissa, p.suffix
	} else {
		p.integer, p.fraction = p.mantissa.substring(0, dp), p.mantissa.substring(dp+1, len(p.mantissa))
	}
	return p, true
}

var numberPictureMessages = map[string]string{
	"D3080": "The picture string must only contain a maximum of two sub-pictures",
	"D3081": "The sub-picture must not contain more than one instance of the 'decimal-separator' character",
	"D3082": "The sub-picture must not contain more than one instance of the 'percent' character",
	"D3083": "The sub-picture must not contain more than one instance of the 'per-mille' character",
	"D3084": "The sub-picture must not contain both a 'percent' and a 'per-mille' character",
	"D3085": "The mantissa part of a sub-picture must contain at least one character that is either an 'optional digit character' or a member of the 'decimal digit family'",
	"D3086": "The sub-picture must not contain a passive character that is preceded by an active character and that is followed by another active character",
	"D3087": "The sub-picture must not contain a 'grouping-separator' character that appears adjacent to a 'decimal-separator' character",
	"D3088": "The sub-picture must not contain a 'grouping-separator' at the end of the integer part",
	"D3089": "The sub-picture must not contain two adjacent instances of the 'grouping-separator' character",
	"D3090": "The integer part of the sub-picture must not contain a member of the 'decimal digit family' that is followed by an instance of the 'optional digit character'",
	"D3091": "The fractional part of the sub-picture must not contain an instance of the 'optional digit character' that is followed by a member of the 'decimal digit family'",
	"D3092": "A sub-picture that contains a 'percent' or 'per-mille' character must not contain a character treated as an 'exponent-separator'",
	"D3093": "The exponent part of the sub-picture must comprise only of one or more characters that are members of the 'decimal digit family'",
}

func numberPictureError(code string) error {
	return &Error{Code: code, Message: numberPictureMessages[code]}
}

// validate applies the rules of F&O §4.7.3; like jsonata-js it reports
// the last rule broken.
func (f *decimalFormat) validate(p *subPicture) error {
	code := ""
	s := p.whole
	decimalPos := s.indexOf(f.decimal, 0)
	if decimalPos != s.lastIndexOf(f.decimal) {
		code = "D3081"
	}
	if s.indexOf(f.percent, 0) != s.lastIndexOf(f.percent) {
		code = "D3082"
	}
	if s.indexOf(f.perMille, 0) != s.lastIndexOf(f.perMille) {
		code = "D3083"
	}
	if s.contains(f.percent) && s.contains(f.perMille) {
		code = "D3084"
	}
	if countChars(p.mantissa, f.isDigitOrOpt) == 0 {
		code = "D3085"
	}
	if countChars(p.active, func(ch jsStr) bool { return !f.isActive(ch) }) > 0 {
		code = "D3086"
	}
	if decimalPos != -1 {
		if s.charAt(decimalPos-1).equal(f.grouping) || s.charAt(decimalPos+1).equal(f.grouping) {
			code = "D3087"
		}
	} else if p.integer.charAt(len(p.integer) - 1).equal(f.grouping) {
		code = "D3088"
	}
	if s.contains(jsConcat(f.grouping, f.grouping)) {
		code = "D3089"
	}
	if opt := p.integer.indexOf(f.digit, 0); opt != -1 && countChars(p.integer.substring(0, opt), f.isDigit) > 0 {
		code = "D3090"
	}
	if opt := p.fraction.lastIndexOf(f.digit); opt != -1 && countChars(p.fraction.substring(opt, len(p.fraction)), f.isDigit) > 0 {
		code = "D3091"
	}
	if p.hasExponent && len(p.exponent) > 0 && (s.contains(f.percent) || s.contains(f.perMille)) {
		code = "D3092"
	}
	if p.hasExponent && (len(p.exponent) == 0 || countChars(p.exponent, func(ch jsStr) bool { return !f.isDigit(ch) }) > 0) {
		code = "D3093"
	}
	if code != "" {
		return numberPictureError(code)
	}
	return nil
}

// numberLayout is an analysed sub-picture (F&O §4.7.4).
type numberLayout struct {
	integerGroups  []int
	regularGroups  int
	minInteger     int
	scaling        int
	prefix, suffix jsStr
	fractionGroups []int
	minFraction    int
	maxFraction    int
	minExponent    int
	picture        jsStr
}

// groupPositions counts the digits right of each grouping separator of
// part (left of it for the fraction); like jsonata-js it looks for each
// next separator in the integer part.
func (f *decimalFormat) groupPositions(p *subPicture, part jsStr, toLeft bool) []int {
	var positions []int
	for pos := part.indexOf(f.grouping, 0); pos != -1; pos = p.integer.indexOf(f.grouping, pos+1) {
		side := part.substring(pos, len(part))
		if toLeft {
			side = part.substring(0, pos)
		}
		positions = append(positions, countChars(side, f.isDigitOrOpt))
	}
	return positions
}

func (f *decimalFormat) analyse(p *subPicture) *numberLayout {
	l := &numberLayout{prefix: p.prefix, suffix: p.suffix, picture: p.whole}
	l.integerGroups = f.groupPositions(p, p.integer, false)
	l.regularGroups = fmtRegularPositions(l.integerGroups)
	l.fractionGroups = f.groupPositions(p, p.fraction, true)
	l.minInteger = countChars(p.integer, f.isDigit)
	l.scaling = l.minInteger
	l.minFraction = countChars(p.fraction, f.isDigit)
	l.maxFraction = countChars(p.fraction, f.isDigitOrOpt)
	if l.minInteger == 0 && l.maxFraction == 0 {
		if p.hasExponent {
			l.minFraction, l.maxFraction = 1, 1
		} else {
			l.minInteger = 1
		}
	}
	if p.hasExponent && l.minInteger == 0 && p.integer.contains(f.digit) {
		l.minInteger = 1
	}
	if l.minInteger == 0 && l.minFraction == 0 {
		l.minFraction = 1
	}
	if p.hasExponent {
		l.minExponent = countChars(p.exponent, f.isDigit)
	}
	return l
}
