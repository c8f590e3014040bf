package picture

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
)

// ParseInteger is $parseInteger(value, picture): value read as written
// to an integer picture, with no check that it fits the picture; NaN
// when it cannot be read. The picture's errors are FormatInteger's
// (D3130, D3131).
func ParseInteger(value, picture string) (float64, error) {
	p, err := analyseIntPicture(picture)
	if err != nil {
		return math.NaN(), err
	}
	m, err := p.matcher()
	if err != nil {
		return math.NaN(), err
	}
	return m.parse(value), nil
}

// intMatcher recognises and reads an integer written to an integer
// picture: regex is the (JavaScript-compatible) pattern a date/time
// picture uses to find it; parse reads it, NaN when unreadable.
type intMatcher struct {
	regex string
	parse func(string) float64
}

// matcher builds the reader for p; D3130 for an unsupported sequence.
func (p *intPicture) matcher() (intMatcher, error) {
	upper := p.letters == upperCase
	switch p.kind {
	case intLetters:
		a, re := 'a', "[a-z]+"
		if upper {
			a, re = 'A', "[A-Z]+"
		}
		return intMatcher{re, func(s string) float64 { return fromLetters(s, a) }}, nil
	case intRoman:
		if upper {
			return intMatcher{"[MDCLXVI]+", fromRoman}, nil
		}
		return intMatcher{"[mdclxvi]+", func(s string) float64 { return fromRoman(strings.ToUpper(s)) }}, nil
	case intWords:
		alts := make([]string, 0, len(wordKeys)+2)
		for _, k := range wordKeys {
			alts = append(alts, regexp.QuoteMeta(k))
		}
		alts = append(alts, "and", `[\-, ]`)
		return intMatcher{"(?:" + strings.Join(alts, "|") + ")+", func(s string) float64 {
			return wordsToNumber(strings.ToLower(s))
		}}, nil
	case intDecimal:
		re := "[0-9]+"
		if p.width > 0 {
			if p.optional == 0 {
				re = "[0-9]{" + strconv.Itoa(p.width) + "}"
			} else {
				re = "[0-9]{" + strconv.Itoa(p.width-p.optional) + "," + strconv.Itoa(p.width) + "}"
			}
		}
		if p.ordinal {
			re += "(?:th|st|nd|rd)"
		}
		return intMatcher{re, p.parseDecimal}, nil
	}
	return intMatcher{}, intSequenceError(p.token)
}

// parseDecimal reads digits written to a decimal digit pattern: the
// ordinal suffix and the separators are dropped (for a regular pattern
// jsonata-js drops commas, whatever the separator), the digit family is
// mapped to ASCII, then JavaScript's parseInt reads the rest.
func (p *intPicture) parseDecimal(s string) float64 {
	units := utf16.Encode([]rune(s))
	if p.ordinal {
		units = units[:max(0, len(units)-2)]
	}
	s = string(utf16.Decode(units))
	if p.regular {
		s = strings.ReplaceAll(s, ",", "")
	} else {
		for _, sep := range p.seps {
			s = strings.ReplaceAll(s, sep.char, "")
		}
	}
	if p.zero != '0' {
		units = utf16.Encode([]rune(s))
		for i := range units {
			units[i] = units[i] - uint16(p.zero) + '0'
		}
		s = string(utf16.Decode(units))
	}
	return js.ParseInt(s)
}
