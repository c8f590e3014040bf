package jsonata

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
)

// JavaScript's \s: white space and line terminators, wider than RE2's.
const (
	jsSpaceRanges    = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`
	jsNotSpaceRanges = `\x{0}-\x{8}\x{e}-\x{1f}\x{21}-\x{9f}\x{a1}-\x{167f}\x{1681}-\x{1fff}\x{200b}-\x{2027}\x{202a}-\x{202e}\x{2030}-\x{205e}\x{2060}-\x{2fff}\x{3001}-\x{fefe}\x{ff00}-\x{10ffff}`
	jsDotClass       = `[^\n\r\x{2028}\x{2029}]`
)

// regexTranslator rewrites a JavaScript (ES2018, non-unicode) pattern in
// RE2 syntax, refusing what RE2 cannot do.
type regexTranslator struct {
	src []rune
	i   int
	out strings.Builder
}

func translateRegex(pattern string) (string, error) {
	t := &regexTranslator{src: []rune(pattern)}
	for t.i < len(t.src) {
		if err := t.step(); err != nil {
			return "", err
		}
	}
	return t.out.String(), nil
}

func (t *regexTranslator) peek(k int) rune {
	if t.i+k < len(t.src) {
		return t.src[t.i+k]
	}
	return -1
}

func (t *regexTranslator) step() error {
	c := t.src[t.i]
	switch c {
	case '\\':
		return t.escape(false)
	case '.':
		t.out.WriteString(jsDotClass)
	case '[':
		return t.class()
	case '(':
		if t.peek(1) == '?' {
			switch {
			case t.peek(2) == '=' || t.peek(2) == '!':
				return errors.New("look-ahead assertions are not supported")
			case t.peek(2) == '<' && (t.peek(3) == '=' || t.peek(3) == '!'):
				return errors.New("look-behind assertions are not supported")
			}
		}
		t.out.WriteRune('(')
	case '{':
		if n := t.quantifierLen(); n > 0 {
			q := string(t.src[t.i : t.i+n])
			if err := checkRepeat(q); err != nil {
				return err
			}
			t.out.WriteString(q)
			t.i += n
			return nil
		}
		t.out.WriteString(`\{`)
	case '}':
		t.out.WriteString(`\}`)
	default:
		t.out.WriteRune(c)
	}
	t.i++
	return nil
}

// quantifierLen is the length of a {n}, {n,} or {n,m} quantifier at the
// current position, or 0 when the brace is a literal.
func (t *regexTranslator) quantifierLen() int {
	j := t.i + 1
	digits := func() int {
		s := j
		for j < len(t.src) && t.src[j] >= '0' && t.src[j] <= '9' {
			j++
		}
		return j - s
	}
	if digits() == 0 {
		return 0
	}
	if j < len(t.src) && t.src[j] == ',' {
		j++
		digits()
	}
	if j < len(t.src) && t.src[j] == '}' {
		return j + 1 - t.i
	}
	return 0
}

func checkRepeat(q string) error {
	for _, part := range strings.Split(strings.Trim(q, "{}"), ",") {
		if part == "" {
			continue
		}
		if n, err := strconv.Atoi(part); err != nil || n > 1000 {
			return fmt.Errorf("repetition count %s exceeds 1000", part)
		}
	}
	return nil
}

// escape translates the escape sequence at the current position; inClass
// says whether it is inside a character class.
func (t *regexTranslator) escape(inClass bool) error {
	t.i++ // the backslash
	c := t.peek(0)
	if c < 0 {
		return errors.New(`\ at end of pattern`)
	}
	t.i++
	switch c {
	case 'd', 'D', 'w', 'W', 't', 'n', 'r', 'v', 'f':
		t.out.WriteRune('\\')
		t.out.WriteRune(c)
	case 'b', 'B':
		if inClass {
			if c == 'b' {
				t.out.WriteString(`\x{8}`)
			} else {
				t.out.WriteRune('B')
			}
		} else {
			t.out.WriteRune('\\')
			t.out.WriteRune(c)
		}
	case 's', 'S':
		ranges := jsSpaceRanges
		if c == 'S' {
			ranges = jsNotSpaceRanges
		}
		if inClass {
			t.out.WriteString(ranges)
		} else {
			t.out.WriteString("[" + ranges + "]")
		}
	case 'u':
		if cu, ok := t.hexUnits(4); ok {
			if utf16.IsSurrogate(rune(cu)) && t.peek(0) == '\\' && t.peek(1) == 'u' {
				save := t.i
				t.i += 2
				if lo, ok := t.hexUnits(4); ok {
					if r := utf16.DecodeRune(rune(cu), rune(lo)); r != 0xFFFD {
						fmt.Fprintf(&t.out, `\x{%x}`, r)
						return nil
					}
				}
				t.i = save
			}
			fmt.Fprintf(&t.out, `\x{%x}`, cu)
			return nil
		}
		t.out.WriteRune('u')
	case 'x':
		if v, ok := t.hexUnits(2); ok {
			fmt.Fprintf(&t.out, `\x{%x}`, v)
			return nil
		}
		t.out.WriteRune('x')
	case 'c':
		if l := t.peek(0); ('a' <= l && l <= 'z') || ('A' <= l && l <= 'Z') {
			t.i++
			fmt.Fprintf(&t.out, `\x{%x}`, l%32)
			return nil
		}
		t.out.WriteString(`\\c`)
	case '0':
		if d := t.peek(0); d >= '0' && d <= '9' {
			return errors.New("octal escapes are not supported")
		}
		t.out.WriteString(`\x{0}`)
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if inClass {
			return errors.New("octal escapes are not supported")
		}
		return errors.New("back-references are not supported")
	case 'k':
		if t.peek(0) == '<' {
			return errors.New("back-references are not supported")
		}
		t.out.WriteRune('k')
	default:
		t.out.WriteString(regexpQuoteRune(c))
	}
	return nil
}

// hexUnits reads n hex digits at the current position.
func (t *regexTranslator) hexUnits(n int) (int, bool) {
	if t.i+n > len(t.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(t.src[t.i:t.i+n]), 16, 32)
	if err != nil || !isHex(string(t.src[t.i:t.i+n])) {
		return 0, false
	}
	t.i += n
	return int(v), true
}

func regexpQuoteRune(c rune) string {
	if c < 128 && strings.ContainsRune(`\.+*?()|[]{}^$-/`, c) {
		if c == '/' {
			return "/"
		}
		return `\` + string(c)
	}
	if ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') || c == '_' {
		return string(c) // an identity escape of a letter matches the letter
	}
	return fmt.Sprintf(`\x{%x}`, c)
}

// class translates a [...] character class.
func (t *regexTranslator) class() error {
	t.i++ // [
	negated := false
	if t.peek(0) == '^' {
		negated = true
		t.i++
	}
	if t.peek(0) == ']' {
		t.i++
		if negated {
			t.out.WriteString(`[\x{0}-\x{10ffff}]`)
		} else {
			t.out.WriteString(`[^\x{0}-\x{10ffff}]`)
		}
		return nil
	}
	t.out.WriteRune('[')
	if negated {
		t.out.WriteRune('^')
	}
	for {
		c := t.peek(0)
		switch c {
		case -1:
			return errors.New("missing terminating ] for character class")
		case ']':
			t.i++
			t.out.WriteRune(']')
			return nil
		case '\\':
			if err := t.escape(true); err != nil {
				return err
			}
		case '[':
			t.out.WriteString(`\[`)
			t.i++
		default:
			t.out.WriteRune(c)
			t.i++
		}
	}
}
