package intrinsics

import (
	"encoding/json"
	"regexp"
	"strings"
)

// maxDepth is how many intrinsic calls AWS lets a field nest.
const maxDepth = 10

type node struct {
	fn    string // "States.X" for a call
	args  []node
	path  string // "$…" argument
	lit   any    // literal value
	raw   string // a string literal as written, escapes intact
	isStr bool
}

type parser struct {
	src string
	pos int
}

var numberRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

func parseExpr(expr string) (node, error) {
	p := &parser{src: strings.TrimSpace(expr)}
	n, err := p.call(1)
	if err != nil {
		return node{}, err
	}
	if p.skipSpace(); p.pos != len(p.src) {
		return node{}, p.fail("unexpected text after the call")
	}
	return n, nil
}

func (p *parser) fail(detail string) error {
	return syntaxError(p.src, detail+" at offset "+itoa(p.pos))
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *parser) call(depth int) (node, error) {
	if depth > maxDepth {
		return node{}, p.fail("more than 10 nested intrinsic functions")
	}
	start := p.pos
	for p.pos < len(p.src) && p.src[p.pos] != '(' && p.src[p.pos] != ' ' {
		p.pos++
	}
	name := p.src[start:p.pos]
	if _, ok := functions[name]; !ok {
		p.pos = start
		return node{}, p.fail("unknown intrinsic function " + name)
	}
	if p.skipSpace(); p.pos >= len(p.src) || p.src[p.pos] != '(' {
		return node{}, p.fail("expected '('")
	}
	p.pos++
	n := node{fn: name}
	if p.skipSpace(); p.pos < len(p.src) && p.src[p.pos] == ')' {
		p.pos++
		return n, nil
	}
	for {
		a, err := p.arg(depth)
		if err != nil {
			return node{}, err
		}
		n.args = append(n.args, a)
		p.skipSpace()
		if p.pos >= len(p.src) {
			return node{}, p.fail("expected ')'")
		}
		c := p.src[p.pos]
		p.pos++
		if c == ')' {
			return n, nil
		}
		if c != ',' {
			p.pos--
			return node{}, p.fail("expected ',' or ')'")
		}
	}
}

func (p *parser) arg(depth int) (node, error) {
	p.skipSpace()
	rest := p.src[p.pos:]
	switch {
	case strings.HasPrefix(rest, "'"):
		return p.str()
	case strings.HasPrefix(rest, "$"):
		return p.path()
	case strings.HasPrefix(rest, "States."):
		return p.call(depth + 1)
	}
	start := p.pos
	for p.pos < len(p.src) && strings.IndexByte(", \t\r\n)", p.src[p.pos]) < 0 {
		p.pos++
	}
	word := p.src[start:p.pos]
	switch {
	case word == "true":
		return node{lit: true}, nil
	case word == "false":
		return node{lit: false}, nil
	case word == "null":
		return node{lit: nil}, nil
	case numberRE.MatchString(word):
		return node{lit: json.Number(word)}, nil
	}
	p.pos = start
	return node{}, p.fail("expected a string, number, boolean, null, path or intrinsic function")
}

func (p *parser) str() (node, error) {
	p.pos++
	var b strings.Builder
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch c {
		case '\\':
			if p.pos+1 >= len(p.src) || strings.IndexByte(`'{}\`, p.src[p.pos+1]) < 0 {
				return node{}, p.fail(`open escape: only \' \{ \} and \\ are allowed`)
			}
			b.WriteByte(p.src[p.pos+1])
			p.pos += 2
		case '\'':
			raw := p.src[start:p.pos]
			p.pos++
			return node{lit: b.String(), raw: raw, isStr: true}, nil
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return node{}, p.fail("unterminated string")
}

// path takes everything up to the ',' or ')' that ends the argument,
// skipping brackets, parentheses and quoted names inside the path.
func (p *parser) path() (node, error) {
	start, depth := p.pos, 0
	var quote byte
	for ; p.pos < len(p.src); p.pos++ {
		c := p.src[p.pos]
		switch {
		case quote != 0:
			if c == '\\' {
				p.pos++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[' || c == '(':
			depth++
		case c == ']' || (c == ')' && depth > 0):
			depth--
		case depth == 0 && (c == ',' || c == ')'):
			return node{path: strings.TrimSpace(p.src[start:p.pos])}, nil
		}
	}
	return node{}, p.fail("unterminated path")
}
