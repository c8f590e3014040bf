package picture

import "github.com/sfnapprovals/approvals/jsonata/internal/js"

// The decimal format and picture analysis of $formatNumber (XPath
// fn:format-number, F&O 3.1 §4.7), including jsonata-js's departures from
// the spec: a sub-picture without a decimal separator takes its suffix as
// its fractional part, and the exponent is cut from the active part at
// its position in the whole sub-picture.

// decimalFormat holds the symbols of a decimal format.
type decimalFormat struct {
	decimal, grouping, exponent, infinity, minus, nan, percent, perMille, zero, digit, pattern js.String
	family                                                                                     []js.String // the ten digits from zero
	active                                                                                     []js.String // characters with a meaning in a picture
}

var decimalFormatDefaults = [][2]string{
	{"decimal-separator", "."}, {"grouping-separator", ","}, {"exponent-separator", "e"},
	{"infinity", "Infinity"}, {"minus-sign", "-"}, {"NaN", "NaN"}, {"percent", "%"},
	{"per-mille", "\u2030"}, {"zero-digit", "0"}, {"digit", "#"}, {"pattern-separator", ";"},
}

// newDecimalFormat applies symbols over the defaults.
func newDecimalFormat(symbols map[string]string) *decimalFormat {
	props := map[string]string{}
	for _, kv := range decimalFormatDefaults {
		props[kv[0]] = kv[1]
	}
	for k, v := range symbols {
		props[k] = v
	}
	f := &decimalFormat{
		decimal: js.String(props["decimal-separator"]), grouping: js.String(props["grouping-separator"]),
		exponent: js.String(props["exponent-separator"]), infinity: js.String(props["infinity"]),
		minus: js.String(props["minus-sign"]), nan: js.String(props["NaN"]), percent: js.String(props["percent"]),
		perMille: js.String(props["per-mille"]), zero: js.String(props["zero-digit"]), digit: js.String(props["digit"]),
		pattern: js.String(props["pattern-separator"]),
	}
	if len(f.zero) > 0 {
		for d := rune(0); d < 10; d++ {
			f.family = append(f.family, js.String{f.zero[0] + d})
		}
	}
	f.active = append(append([]js.String{}, f.family...), f.decimal, f.exponent, f.grouping, f.digit, f.pattern)
	return f
}

func memberOf(set []js.String, ch js.String) bool {
	for _, s := range set {
		if s.Equal(ch) {
			return true
		}
	}
	return false
}

func (f *decimalFormat) isDigit(ch js.String) bool      { return memberOf(f.family, ch) }
func (f *decimalFormat) isActive(ch js.String) bool     { return memberOf(f.active, ch) }
func (f *decimalFormat) isDigitOrOpt(ch js.String) bool { return f.isDigit(ch) || ch.Equal(f.digit) }

// countChars is how many characters of s satisfy pred.
func countChars(s js.String, pred func(js.String) bool) int {
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
	whole, prefix, suffix, active, mantissa, integer, fraction js.String
	exponent                                                   js.String
	hasExponent                                                bool
}

// splitSubPicture splits a sub-picture into its parts; false when it has
// no active character (jsonata-js fails with a TypeError there).
func (f *decimalFormat) splitSubPicture(s js.String) (*subPicture, bool) {
	first, last := -1, -1
	for i := range s {
		if ch := s[i : i+1]; f.isActive(ch) && !ch.Equal(f.exponent) {
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
	p.active = s.Substring(len(p.prefix), len(s)-len(p.suffix))
	expPos := s.IndexOf(f.exponent, len(p.prefix))
	if expPos == -1 || expPos > len(s)-len(p.suffix) {
		p.mantissa = p.active
	} else {
		p.mantissa = p.active.Substring(0, expPos)
		p.exponent, p.hasExponent = p.active.Substring(expPos+1, len(p.active)), true
	}
	if dp := p.mantissa.IndexOf(f.decimal, 0); dp == -1 {
		p.integer, p.fraction = p.mantissa, p.suffix
	} else {
		p.integer, p.fraction = p.mantissa.Substring(0, dp), p.mantissa.Substring(dp+1, len(p.mantissa))
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
	decimalPos := s.IndexOf(f.decimal, 0)
	if decimalPos != s.LastIndexOf(f.decimal) {
		code = "D3081"
	}
	if s.IndexOf(f.percent, 0) != s.LastIndexOf(f.percent) {
		code = "D3082"
	}
	if s.IndexOf(f.perMille, 0) != s.LastIndexOf(f.perMille) {
		code = "D3083"
	}
	if s.Contains(f.percent) && s.Contains(f.perMille) {
		code = "D3084"
	}
	if countChars(p.mantissa, f.isDigitOrOpt) == 0 {
		code = "D3085"
	}
	if countChars(p.active, func(ch js.String) bool { return !f.isActive(ch) }) > 0 {
		code = "D3086"
	}
	if decimalPos != -1 {
		if s.CharAt(decimalPos-1).Equal(f.grouping) || s.CharAt(decimalPos+1).Equal(f.grouping) {
			code = "D3087"
		}
	} else if p.integer.CharAt(len(p.integer) - 1).Equal(f.grouping) {
		code = "D3088"
	}
	if s.Contains(js.Concat(f.grouping, f.grouping)) {
		code = "D3089"
	}
	if opt := p.integer.IndexOf(f.digit, 0); opt != -1 && countChars(p.integer.Substring(0, opt), f.isDigit) > 0 {
		code = "D3090"
	}
	if opt := p.fraction.LastIndexOf(f.digit); opt != -1 && countChars(p.fraction.Substring(opt, len(p.fraction)), f.isDigit) > 0 {
		code = "D3091"
	}
	if p.hasExponent && len(p.exponent) > 0 && (s.Contains(f.percent) || s.Contains(f.perMille)) {
		code = "D3092"
	}
	if p.hasExponent && (len(p.exponent) == 0 || countChars(p.exponent, func(ch js.String) bool { return !f.isDigit(ch) }) > 0) {
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
	prefix, suffix js.String
	fractionGroups []int
	minFraction    int
	maxFraction    int
	minExponent    int
	picture        js.String
}

// groupPositions counts the digits right of each grouping separator of
// part (left of it for the fraction); like jsonata-js it looks for each
// next separator in the integer part.
func (f *decimalFormat) groupPositions(p *subPicture, part js.String, toLeft bool) []int {
	var positions []int
	for pos := part.IndexOf(f.grouping, 0); pos != -1; pos = p.integer.IndexOf(f.grouping, pos+1) {
		side := part.Substring(pos, len(part))
		if toLeft {
			side = part.Substring(0, pos)
		}
		positions = append(positions, countChars(side, f.isDigitOrOpt))
	}
	return positions
}

func (f *decimalFormat) analyse(p *subPicture) *numberLayout {
	l := &numberLayout{prefix: p.prefix, suffix: p.suffix, picture: p.whole}
	l.integerGroups = f.groupPositions(p, p.integer, false)
	l.regularGroups = regularInterval(l.integerGroups)
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
	if p.hasExponent && l.minInteger == 0 && p.integer.Contains(f.digit) {
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
