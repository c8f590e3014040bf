package js

import (
	"strings"
	"unicode"
)

// ToUpperCase is JavaScript's toUpperCase: Go's simple mappings plus the
// multi-character ones (ß becomes SS).
func ToUpperCase(s string) string {
	var b strings.Builder
	for _, r := range s {
		if special, ok := upperSpecial[r]; ok {
			b.WriteString(special)
		} else {
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	return b.String()
}

// ToLowerCase is JavaScript's toLowerCase: Go's simple mappings, İ as i
// with a combining dot, and Σ as final sigma (ς) at the end of a word.
func ToLowerCase(s string) string {
	runes := []rune(s)
	var b strings.Builder
	for i, r := range runes {
		switch {
		case r == 'İ':
			b.WriteString("i\u0307")
		case r == 'Σ' && finalSigma(runes, i):
			b.WriteRune('ς')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma is Unicode's Final_Sigma condition for the sigma at i: a
// cased letter before it and none after it, skipping case-ignorable
// characters.
func finalSigma(runes []rune, i int) bool {
	before := i - 1
	for before >= 0 && caseIgnorable(runes[before]) {
		before--
	}
	if before < 0 || !cased(runes[before]) {
		return false
	}
	after := i + 1
	for after < len(runes) && caseIgnorable(runes[after]) {
		after++
	}
	return after == len(runes) || !cased(runes[after])
}

func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.In(r, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '·', '\u0387', '\u055F', '\u05F4', '\u2018', '\u2019', '\u2024', '\u2027',
		'\uFE13', '\uFE52', '\uFE55', '\uFF07', '\uFF0E', '\uFF1A':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
