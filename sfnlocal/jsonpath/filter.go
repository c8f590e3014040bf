package jsonpath

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// expr is a filter predicate, evaluated against the document root and the
// candidate node (@).
type expr interface {
	eval(root, cur any) bool
}

type orExpr struct{ l, r expr }
type andExpr struct{ l, r expr }
type notExpr struct{ e expr }
type existsExpr struct{ o operand }
type cmpExpr struct {
	op   string
	l, r operand
}

func (e orExpr) eval(root, cur any) bool  { return e.l.eval(root, cur) || e.r.eval(root, cur) }
func (e andExpr) eval(root, cur any) bool { return e.l.eval(root, cur) && e.r.eval(root, cur) }
func (e notExpr) eval(root, cur any) bool { return !e.e.eval(root, cur) }

func (e existsExpr) eval(root, cur any) bool {
	v, ok := e.o.value(root, cur)
	if _, lit := e.o.(litOperand); lit {
		return ok && v == true
	}
	return ok
}

func (e cmpExpr) eval(root, cur any) bool {
	l, lok := e.l.value(root, cur)
	if e.op == "=~" {
		re, isRe := e.r.(regexOperand)
		s, isStr := l.(string)
		return lok && isRe && isStr && re.re.MatchString(s)
	}
	r, rok := e.r.value(root, cur)
	if e.op == "!=" {
		return !(lok && rok && equal(l, r))
	}
	if !lok || !rok {
		return false
	}
	if e.op == "==" {
		return equal(l, r)
	}
	c, ok := compare(l, r)
	if !ok {
		return false
	}
	switch e.op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	default:
		return c >= 0
	}
}

// operand yields a value; ok is false when a path selects nothing.
type operand interface {
	value(root, cur any) (v any, ok bool)
}

type pathOperand struct {
	fromRoot bool
	p        path
}
type litOperand struct{ v any }
type regexOperand struct{ re *regexp.Regexp }

func (o pathOperand) value(root, cur any) (any, bool) {
	doc := cur
	if o.fromRoot {
		doc = root
	}
	v, err := eval(o.p, doc)
	return v, err == nil
}

func (o litOperand) value(_, _ any) (any, bool)   { return o.v, true }
func (o regexOperand) value(_, _ any) (any, bool) { return nil, false }

var cmpOps = []string{"==", "!=", "<=", ">=", "=~", "<", ">"}

func (p *parser) filterExpr() (expr, error) {
	l, err := p.andExpr()
	if err != nil {
		return nil, err
	}
	for {
		p.skipSpace()
		if !strings.HasPrefix(p.src[p.pos:], "||") {
			return l, nil
		}
		p.pos += 2
		r, err := p.andExpr()
		if err != nil {
			return nil, err
		}
		l = orExpr{l, r}
	}
}

func (p *parser) andExpr() (expr, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		p.skipSpace()
		if !strings.HasPrefix(p.src[p.pos:], "&&") {
			return l, nil
		}
		p.pos += 2
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = andExpr{l, r}
	}
}

func (p *parser) unary() (expr, error) {
	p.skipSpace()
	switch p.peek() {
	case '!':
		p.pos++
		e, err := p.unary()
		return notExpr{e}, err
	case '(':
		p.pos++
		e, err := p.filterExpr()
		if err != nil {
			return nil, err
		}
		return e, p.expect(')')
	}
	l, err := p.operand()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	for _, op := range cmpOps {
		if strings.HasPrefix(p.src[p.pos:], op) {
			p.pos += len(op)
			r, err := p.operand()
			if err != nil {
				return nil, err
			}
			if _, isRe := r.(regexOperand); isRe != (op == "=~") {
				return nil, p.errorf("a regular expression goes with =~ only")
			}
			return cmpExpr{op: op, l: l, r: r}, nil
		}
	}
	return existsExpr{l}, nil
}

func (p *parser) operand() (operand, error) {
	p.skipSpace()
	start := p.pos
	switch c := p.peek(); {
	case c == '@' || c == '$':
		p.pos++
		segs, err := p.segments(true)
		if err != nil {
			return nil, err
		}
		return pathOperand{fromRoot: c == '$', p: path{src: "$" + p.src[start+1:p.pos], segs: segs}}, nil
	case c == '\'' || c == '"':
		s, err := p.quoted(true)
		return litOperand{s}, err
	case c == '/':
		return p.regex()
	case c == '-' || (c >= '0' && c <= '9'):
		for p.pos < len(p.src) && strings.IndexByte("+-.eE0123456789", p.src[p.pos]) >= 0 {
			p.pos++
		}
		text := p.src[start:p.pos]
		if _, err := strconv.ParseFloat(text, 64); err != nil {
			p.pos = start
			return nil, p.errorf("invalid number")
		}
		return litOperand{json.Number(text)}, nil
	}
	for word, v := range map[string]any{"true": true, "false": false, "null": nil} {
		if strings.HasPrefix(p.src[p.pos:], word) {
			p.pos += len(word)
			return litOperand{v}, nil
		}
	}
	return nil, p.errorf("expected a filter operand")
}

func (p *parser) regex() (operand, error) {
	p.pos++
	var b strings.Builder
	for {
		if p.pos >= len(p.src) {
			return nil, p.errorf("unterminated regular expression")
		}
		c := p.src[p.pos]
		p.pos++
		if c == '/' {
			break
		}
		if c == '\\' && p.pos < len(p.src) && p.src[p.pos] == '/' {
			c = '/'
			p.pos++
		}
		b.WriteByte(c)
	}
	flags := ""
	for p.pos < len(p.src) && strings.IndexByte("imsx", p.src[p.pos]) >= 0 {
		if p.src[p.pos] != 'x' {
			flags += string(p.src[p.pos])
		}
		p.pos++
	}
	pattern := b.String()
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, p.errorf("invalid regular expression: " + err.Error())
	}
	return regexOperand{re}, nil
}
