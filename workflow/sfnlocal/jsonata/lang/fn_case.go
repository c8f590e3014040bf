package lang

import (
	"strings"
	"unicode"
)

// fnToUpper is JavaScript's toUpperCase: Go's simple mappings plus the
// multi-character ones (ß becomes SS).
func fnToUpper(s string) string {
	var b strings.Builder
	for _, r := range s {
		if special, ok := fnUpperSpecial[r]; ok {
			b.WriteString(special)
		} else {
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	return b.String()
}

// fnToLower is JavaScript's toLowerCase: Go's simple mappings, İ as i
// with a combining dot, and Σ as final sigma (ς) at the end of a word.
func fnToLower(s string) string {
	runes := []rune(s)
	var b strings.Builder
	for i, r := range runes {
		switch {
		case r == 'İ':
			b.WriteString("i\u0307")
		case r == 'Σ' && fnFinalSigma(runes, i):
			b.WriteRune('ς')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// fnFinalSigma is Unicode's Final_Sigma condition for the sigma at i: a
// cased letter before it and none after it, skipping case-ignorable
// characters.
func fnFinalSigma(runes []rune, i int) bool {
	before := i - 1
	for before >= 0 && fnCaseIgnorable(runes[before]) {
		before--
	}
	if before < 0 || !fnCased(runes[before]) {
		return false
	}
	after := i + 1
	for after < len(runes) && fnCaseIgnorable(runes[after]) {
		after++
	}
	return after == len(runes) || !fnCased(runes[after])
}

func fnCased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.In(r, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

func fnCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '·', '\u0387', '\u055F', '\u05F4', '\u2018', '\u2019', '\u2024', '\u2027',
		'\uFE13', '\uFE52', '\uFE55', '\uFF07', '\uFF0E', '\uFF1A':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
