package jsonata

import (
	"math"
	"strconv"
	"unicode/utf16"
)

type tokenType uint8

const (
	tokOperator tokenType = iota
	tokName
	tokVariable
	tokString
	tokNumber
	tokValue // true, false, null
	tokRegex
)

// token is one lexical token. pos is the position just after the token,
// in UTF-16 code units, which is what jsonata-js reports in errors.
type token struct {
	typ   tokenType
	value any // string (operator, name, variable, string), float64, bool, nil or *Regex
	pos   int
}

// operatorChars are the characters that are operators on their own or end
// a name. "!" and "~" only end names; alone they are unknown operators.
var operatorChars = func() (set [128]bool) {
	for _, c := range ".[]{}(),@#;:?+-*/%|=<>^&!~" {
		set[c] = true
	}
	return set
}()

func isOperatorChar(c uint16) bool { return c < 128 && operatorChars[c] }

// twoCharOperators are recognised before single characters.
var twoCharOperators = []string{"..", ":=", "!=", ">=", "<=", "**", "~>"}

var stringEscapes = map[uint16]uint16{
	'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t',
}

// lexer splits an expression into tokens on demand. It works on UTF-16
// code units so that positions match jsonata-js.
type lexer struct {
	src []uint16
	pos int
}

func newLexer(expr string) *lexer {
	return &lexer{src: utf16.Encode([]rune(expr))}
}

func (l *lexer) at(i int) uint16 {
	if i < 0 || i >= len(l.src) {
		return 0
	}
	return l.src[i]
}

func isSpace(c uint16) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v'
}

func (l *lexer) text(from, to int) string { return string(utf16.Decode(l.src[from:to])) }

// next returns the next token, or nil at the end. infix is true where an
// operator is expected, which makes "/" division rather than a regex.
func (l *lexer) next(infix bool) (*token, error) {
	for {
		for l.pos < len(l.src) && isSpace(l.src[l.pos]) {
			l.pos++
		}
		if l.at(l.pos) != '/' || l.at(l.pos+1) != '*' {
			break
		}
		start := l.pos
		l.pos += 2
		for !(l.at(l.pos) == '*' && l.at(l.pos+1) == '/') {
			l.pos++
			if l.pos >= len(l.src) {
				return nil, &Error{Code: "S0106", Position: start}
			}
		}
		l.pos += 2
	}
	if l.pos >= len(l.src) {
		return nil, nil
	}
	c := l.src[l.pos]
	if !infix && c == '/' {
		l.pos++
		re, err := l.scanRegex()
		if err != nil {
			return nil, err
		}
		return &token{typ: tokRegex, value: re, pos: l.pos}, nil
	}
	for _, op := range twoCharOperators {
		if c == uint16(op[0]) && l.at(l.pos+1) == uint16(op[1]) {
			l.pos += 2
			return &token{typ: tokOperator, value: op, pos: l.pos}, nil
		}
	}
	if isOperatorChar(c) {
		l.pos++
		return &token{typ: tokOperator, value: string(rune(c)), pos: l.pos}, nil
	}
	if c == '"' || c == '\'' {
		return l.scanString(c)
	}
	if t, err := l.scanNumber(); t != nil || err != nil {
		return t, err
	}
	if c == '`' {
		l.pos++
		for end := l.pos; end < len(l.src); end++ {
			if l.src[end] == '`' {
				name := l.text(l.pos, end)
				l.pos = end + 1
				return &token{typ: tokName, value: name, pos: l.pos}, nil
			}
		}
		l.pos = len(l.src)
		return nil, &Error{Code: "S0105", Position: l.pos}
	}
	return l.scanName(), nil
}

func (l *lexer) scanString(quote uint16) (*token, error) {
	l.pos++
	var buf []uint16
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '\\':
			l.pos++
			e := l.at(l.pos)
			if r, ok := stringEscapes[e]; ok && l.pos < len(l.src) {
				buf = append(buf, r)
			} else if e == 'u' {
				end := min(l.pos+5, len(l.src))
				hex := l.text(l.pos+1, end)
				v, err := strconv.ParseUint(hex, 16, 16)
				if hex == "" || err != nil || !isHex(hex) {
					return nil, &Error{Code: "S0104", Position: l.pos}
				}
				buf = append(buf, uint16(v))
				l.pos += 4
			} else {
				tok := ""
				if l.pos < len(l.src) {
					tok = l.text(l.pos, l.pos+1)
				}
				return nil, &Error{Code: "S0103", Position: l.pos, Token: tok}
			}
		case c == quote:
			l.pos++
			return &token{typ: tokString, value: string(utf16.Decode(buf)), pos: l.pos}, nil
		default:
			buf = append(buf, c)
		}
		l.pos++
	}
	return nil, &Error{Code: "S0101", Position: l.pos}
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func isDigit(c uint16) bool { return '0' <= c && c <= '9' }

// scanNumber matches -?(0|[1-9][0-9]*)(\.[0-9]+)?([Ee][-+]?[0-9]+)? at
// the current position; it returns nil when there is no number.
func (l *lexer) scanNumber() (*token, error) {
	i := l.pos
	if l.at(i) == '-' {
		i++
	}
	switch {
	case l.at(i) == '0':
		i++
	case isDigit(l.at(i)):
		for i < len(l.src) && isDigit(l.src[i]) {
			i++
		}
	default:
		return nil, nil
	}
	if l.at(i) == '.' && isDigit(l.at(i+1)) {
		i++
		for i < len(l.src) && isDigit(l.src[i]) {
			i++
		}
	}
	if e := l.at(i); e == 'e' || e == 'E' {
		j := i + 1
		if s := l.at(j); s == '+' || s == '-' {
			j++
		}
		if isDigit(l.at(j)) {
			for j < len(l.src) && isDigit(l.src[j]) {
				j++
			}
			i = j
		}
	}
	text := l.text(l.pos, i)
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, &Error{Code: "S0102", Position: l.pos, Token: text}
	}
	l.pos = i
	return &token{typ: tokNumber, value: f, pos: l.pos}, nil
}

func (l *lexer) scanName() *token {
	i := l.pos
	for i < len(l.src) && !isSpace(l.src[i]) && !isOperatorChar(l.src[i]) {
		i++
	}
	start := l.pos
	l.pos = i
	if l.src[start] == '$' {
		return &token{typ: tokVariable, value: l.text(start+1, i), pos: i}
	}
	name := l.text(start, i)
	switch name {
	case "or", "in", "and":
		return &token{typ: tokOperator, value: name, pos: i}
	case "true":
		return &token{typ: tokValue, value: true, pos: i}
	case "false":
		return &token{typ: tokValue, value: false, pos: i}
	case "null":
		return &token{typ: tokValue, value: nil, pos: i}
	}
	return &token{typ: tokName, value: name, pos: i}
}
