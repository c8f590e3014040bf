package jsonata

import (
	"regexp"
	"strings"
	"sync"
)

// signature is a parsed jsonata-js function signature such as
// "<s-nn?:s>". Arguments are checked the way jsonata-js checks them: each
// argument becomes a type symbol (s, n, b, l for null, a, o, f, m for
// missing) and the symbols must match a pattern built from the parameters.
type signature struct {
	params []sigParam
	re     *regexp.Regexp
}

type sigParam struct {
	pattern   string // the symbols this parameter accepts, with its modifier
	typ       string // the type letter, or "(...)" for a choice
	context   bool   // "-": the focus stands in when the argument is missing
	contextRe *regexp.Regexp
	subtype   string // a<n>: the type of the array's members
}

var signatureCache sync.Map // string → *signature

// cachedSignature parses a built-in's signature once.
func cachedSignature(text string) (*signature, error) {
	if s, ok := signatureCache.Load(text); ok {
		return s.(*signature), nil
	}
	s, err := parseSignature(text)
	if err != nil {
		return nil, err
	}
	signatureCache.Store(text, s)
	return s, nil
}

// signatureArity counts the parameters of a jsonata-js signature.
func signatureArity(text string) int {
	s, err := cachedSignature(text)
	if err != nil {
		return 0
	}
	return len(s.params)
}

// parseSignature parses text, which includes the angle brackets. Errors
// carry the offset within text as their position.
func parseSignature(text string) (*signature, error) {
	var params []sigParam
	cur := sigParam{}
	var prev *sigParam
	next := func() {
		params = append(params, cur)
		prev = &params[len(params)-1]
		cur = sigParam{}
	}
	for pos := 1; pos < len(text); pos++ {
		c := text[pos]
		if c == ':' {
			break
		}
		switch c {
		case 's', 'n', 'b', 'l', 'o':
			cur.pattern, cur.typ = "["+string(c)+"m]", string(c)
			next()
		case 'a':
			cur.pattern, cur.typ = "[asnblfom]", "a"
			next()
		case 'f':
			cur.pattern, cur.typ = "f", "f"
			next()
		case 'j':
			cur.pattern, cur.typ = "[asnblom]", "j"
			next()
		case 'x':
			cur.pattern, cur.typ = "[asnblfom]", "x"
			next()
		case '-':
			if prev != nil {
				prev.context = true
				prev.contextRe = regexp.MustCompile(prev.pattern)
				prev.pattern += "?"
			}
		case '?', '+':
			if prev != nil {
				prev.pattern += string(c)
			}
		case '(':
			end := closingBracket(text, pos, '(', ')')
			choice := text[pos+1 : end]
			if strings.Contains(choice, "<") {
				return nil, errAt("S0402", pos, inserts{"value": choice})
			}
			cur.pattern, cur.typ = "["+choice+"m]", "("+choice+")"
			pos = end
			next()
		case '<':
			if prev == nil || (prev.typ != "a" && prev.typ != "f") {
				t := any(Undefined)
				if prev != nil {
					t = prev.typ
				}
				return nil, errAt("S0401", pos, inserts{"value": t})
			}
			end := closingBracket(text, pos, '<', '>')
			prev.subtype = text[pos+1 : end]
			pos = end
		}
	}
	var b strings.Builder
	b.WriteByte('^')
	for _, p := range params {
		b.WriteString("(" + p.pattern + ")")
	}
	b.WriteByte('$')
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, &Error{Code: "S0401", Message: "Invalid function signature: " + text}
	}
	return &signature{params: params, re: re}, nil
}

func closingBracket(s string, start int, open, closing byte) int {
	depth := 1
	pos := start
	for pos < len(s) {
		pos++
		if pos >= len(s) {
			break
		}
		switch s[pos] {
		case closing:
			depth--
			if depth == 0 {
				return pos
			}
		case open:
			depth++
		}
	}
	return pos
}
