package picture

import (
	"math"
	"strings"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
)

// Integer pictures (XPath fn:format-integer) as jsonata-js reads them:
// "A"/"a" letters, "I"/"i" Roman numerals, "W"/"w"/"Ww" words, or a
// decimal digit pattern such as "#,##0" in any Unicode digit family; a
// ";o" modifier asks for an ordinal.

// FormatInteger is $formatInteger(value, picture): value rounded down and
// written to an integer picture. A picture that is no supported numbering
// sequence is an *Error D3130, a digit pattern mixing digit families
// D3131, and Roman numerals from 1e7 on V8's RangeError "Maximum call
// stack size exceeded", which has no code (jsonata-js overflows its
// stack there).
func FormatInteger(value float64, picture string) (string, error) {
	p, err := analyseIntPicture(picture)
	if err != nil {
		return "", err
	}
	return p.format(math.Floor(value))
}

type intKind int

const (
	intDecimal intKind = iota
	intLetters
	intRoman
	intWords
	intSequence // unsupported numbering sequence
)

type letterCase int

const (
	lowerCase letterCase = iota
	upperCase
	titleCase
)

// intGroupSep is a grouping separator that many digits from the right.
type intGroupSep struct {
	position int
	char     string
}

// intPicture is an analysed integer picture.
type intPicture struct {
	kind      intKind
	letters   letterCase
	ordinal   bool
	zero      rune // decimal: the digit family's zero
	mandatory int  // decimal: mandatory digits
	optional  int  // decimal: optional digits (#)
	regular   bool // decimal: separators repeat every every.position digits
	every     intGroupSep
	seps      []intGroupSep // decimal, irregular: right to left
	token     string        // sequence: the picture
	width     int           // parsing: the exact digit count wanted, 0 for any
}

// intDigitFamilies are the zeros of the Unicode decimal digit families that
// jsonata-js recognises.
var intDigitFamilies = []rune{0x30, 0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6,
	0x0C66, 0x0CE6, 0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0,
	0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10}

// intDigitFamily is the zero of r's decimal digit family, or -1.
func intDigitFamily(r rune) rune {
	for _, z := range intDigitFamilies {
		if r >= z && r <= z+9 {
			return z
		}
	}
	return -1
}

// analyseIntPicture reads an integer picture; D3131 when a digit pattern
// mixes digit families.
func analyseIntPicture(picture string) (*intPicture, error) {
	p := &intPicture{kind: intDecimal, letters: lowerCase}
	primary := picture
	if semi := strings.LastIndex(picture, ";"); semi >= 0 {
		primary = picture[:semi]
		p.ordinal = strings.HasPrefix(picture[semi+1:], "o")
	}
	switch primary {
	case "A":
		p.kind, p.letters = intLetters, upperCase
	case "a":
		p.kind = intLetters
	case "I":
		p.kind, p.letters = intRoman, upperCase
	case "i":
		p.kind = intRoman
	case "W":
		p.kind, p.letters = intWords, upperCase
	case "Ww":
		p.kind, p.letters = intWords, titleCase
	case "w":
		p.kind = intWords
	default:
		return p, p.analyseDigits(primary)
	}
	return p, nil
}

func (p *intPicture) analyseDigits(primary string) error {
	zero := rune(-1)
	var seps []intGroupSep
	position := 0
	runes := []rune(primary)
	for i := len(runes) - 1; i >= 0; i-- {
		r := runes[i]
		if z := intDigitFamily(r); z >= 0 {
			p.mandatory++
			position++
			if zero == -1 {
				zero = z
			} else if z != zero {
				return &Error{Code: "D3131", Message: "In a decimal digit pattern, all digits must be from the same decimal group"}
			}
			continue
		}
		if r == '#' {
			position++
			p.optional++
			continue
		}
		seps = append(seps, intGroupSep{position: position, char: string(r)})
	}
	if p.mandatory == 0 {
		p.kind, p.token = intSequence, primary
		return nil
	}
	p.zero = zero
	if every := intRegularInterval(seps); every > 0 {
		p.regular = true
		p.every = intGroupSep{position: every, char: seps[0].char}
	} else {
		p.seps = seps
	}
	return nil
}

// intRegularInterval is the interval at which the separators repeat, or 0
// when they are not all the same character at multiples of one interval.
func intRegularInterval(seps []intGroupSep) int {
	if len(seps) == 0 {
		return 0
	}
	for _, s := range seps[1:] {
		if s.char != seps[0].char {
			return 0
		}
	}
	positions := make([]int, len(seps))
	for i, s := range seps {
		positions[i] = s.position
	}
	return regularInterval(positions)
}

// regularInterval is the greatest common divisor of positions when every
// multiple of it up to len(positions) times is among them, else 0.
func regularInterval(positions []int) int {
	if len(positions) == 0 {
		return 0
	}
	factor := positions[0]
	for _, p := range positions[1:] {
		factor = gcd(factor, p)
	}
	for i := 1; i <= len(positions); i++ {
		found := false
		for _, p := range positions {
			if p == i*factor {
				found = true
				break
			}
		}
		if !found {
			return 0
		}
	}
	return factor
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// romanLimit is where jsonata-js's recursive Roman numeral writer
// (one call per thousand) overflows V8's stack, somewhere above 1e7
// depending on how deep the call already is; it throws a RangeError.
// We stop at 1e7 rather than build megabytes of "M".
const romanLimit = 1e7

// intSequenceError is D3130 for a picture that is no supported numbering.
func intSequenceError(token string) error {
	return &Error{Code: "D3130", Value: token,
		Message: "Formatting or parsing an integer as a sequence starting with " + js.Quote(token) + " is not supported by this implementation"}
}

// format writes an integer (jsonata-js's _formatInteger).
func (p *intPicture) format(value float64) (string, error) {
	negative := value < 0
	value = math.Abs(value)
	var out string
	switch p.kind {
	case intLetters:
		a := 'a'
		if p.letters == upperCase {
			a = 'A'
		}
		out = toLetters(value, a)
	case intRoman:
		if value >= romanLimit {
			return "", &Error{Message: "Maximum call stack size exceeded"}
		}
		out = toRoman(value)
		if p.letters == upperCase {
			out = strings.ToUpper(out)
		}
	case intWords:
		out = numberToWords(value, p.ordinal)
		switch p.letters {
		case upperCase:
			out = strings.ToUpper(out)
		case lowerCase:
			out = strings.ToLower(out)
		}
	case intDecimal:
		out = p.formatDecimal(value)
	case intSequence:
		return "", intSequenceError(p.token)
	}
	if negative {
		out = "-" + out
	}
	return out, nil
}

func (p *intPicture) formatDecimal(value float64) string {
	s := js.String(js.NumberToString(value))
	if pad := p.mandatory - len(s); pad > 0 {
		s = append([]rune(strings.Repeat("0", pad)), s...)
	}
	if p.zero != '0' {
		for i := range s {
			s[i] += p.zero - '0'
		}
	}
	insert := func(pos int, sep string) { // s.substr(0, pos) + sep + s.substr(pos)
		s = js.Concat(s.Substr(0, pos), js.String(sep), s.Substr(pos, len(s)))
	}
	if p.regular {
		n := (len(s) - 1) / p.every.position
		for i := n; i > 0; i-- {
			insert(len(s)-i*p.every.position, p.every.char)
		}
	} else {
		for i := len(p.seps) - 1; i >= 0; i-- {
			insert(len(s)-p.seps[i].position, p.seps[i].char)
		}
	}
	if p.ordinal {
		suffix := "th"
		if n := len(s); n == 1 || s[n-2] != '1' {
			switch s[n-1] {
			case '1':
				suffix = "st"
			case '2':
				suffix = "nd"
			case '3':
				suffix = "rd"
			}
		}
		s = append(s, js.String(suffix)...)
	}
	return string(s)
}
