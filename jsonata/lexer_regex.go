package jsonata

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"slices"
)

// scanRegex reads a regular expression literal after its opening slash:
// the pattern up to the closing slash (one not escaped and not inside
// brackets), then the flags i and m.
func (l *lexer) scanRegex() (*Regex, error) {
	start := l.pos
	depth := 0
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == '/' && depth == 0 && l.evenBackslashesBefore(l.pos) {
			pattern := l.text(start, l.pos)
			if pattern == "" {
				return nil, &Error{Code: "S0301", Position: l.pos}
			}
			l.pos++
			flagStart := l.pos
			for l.at(l.pos) == 'i' || l.at(l.pos) == 'm' {
				l.pos++
			}
			return compileRegex(pattern, l.text(flagStart, l.pos), l.pos)
		}
		escaped := l.at(l.pos-1) == '\\'
		if (c == '(' || c == '[' || c == '{') && !escaped {
			depth++
		}
		if (c == ')' || c == ']' || c == '}') && !escaped {
			depth--
		}
		l.pos++
	}
	return nil, &Error{Code: "S0302", Position: l.pos}
}

func (l *lexer) evenBackslashesBefore(i int) bool {
	n := 0
	for l.at(i-(n+1)) == '\\' {
		n++
	}
	return n%2 == 0
}

// compileRegex builds a Regex from a JavaScript pattern and flags,
// translating the pattern to RE2. A pattern RE2 cannot express
// (look-around, back-references) is error S0303.
func compileRegex(pattern, flags string, pos int) (*Regex, error) {
	src, err := translateRegex(pattern)
	if err != nil {
		return nil, &Error{Code: "S0303", Position: pos, Token: pattern, Message: "Regular expression /" + pattern + "/ is not supported: " + err.Error()}
	}
	prefix := ""
	for _, f := range flags {
		switch f {
		case 'i':
			prefix += "i"
		case 'm':
			prefix += "m"
		}
	}
	if prefix != "" {
		src = "(?" + prefix + ")" + src
	}
	re, cerr := regexp.Compile(src)
	if se := (*syntax.Error)(nil); errors.As(cerr, &se) &&
		(se.Code == syntax.ErrInvalidRepeatOp || se.Code == syntax.ErrMissingRepeatArgument) {
		// JavaScript rejects these too: a SyntaxError, which has no code
		return nil, &Error{Message: "Invalid regular expression: /" + pattern + "/" + jsRegexFlags(flags) + ": Nothing to repeat"}
	}
	if cerr != nil {
		return nil, &Error{Code: "S0303", Position: pos, Token: pattern, Message: "Regular expression /" + pattern + "/ is not supported: " + cerr.Error()}
	}
	return &Regex{Source: pattern, Flags: flags, Re: re, pos: pos}, nil
}

// jsRegexFlags is the flags text of the RegExp jsonata-js evaluates a
// literal to: g added, in JavaScript's alphabetical order.
func jsRegexFlags(flags string) string {
	f := []byte("g" + flags)
	slices.Sort(f)
	return string(f)
}
