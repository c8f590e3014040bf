package jsonpath

import (
	"strconv"
	"strings"
	"unicode"
)

type segKind int

const (
	segName segKind = iota
	segIndex
	segWildcard
	segSlice
	segFilter
)

type segment struct {
	kind    segKind
	descend bool
	names   []string
	indexes []int
	slice   [3]*int
	filter  expr
}

func (s segment) definite() bool {
	if s.descend {
		return false
	}
	return (s.kind == segName && len(s.names) == 1) || (s.kind == segIndex && len(s.indexes) == 1)
}

type path struct {
	src  string
	segs []segment
}

func (p path) reference() bool {
	for _, s := range p.segs {
		if !s.definite() || (s.kind == segIndex && s.indexes[0] < 0) {
			return false
		}
	}
	return true
}

type parser struct {
	src string
	pos int
}

func parse(src string) (path, error) {
	p := &parser{src: src}
	if !strings.HasPrefix(src, "$") {
		return path{}, p.errorf("a path must start with '$'")
	}
	p.pos = 1
	segs, err := p.segments(false)
	if err != nil {
		return path{}, err
	}
	return path{src: src, segs: segs}, nil
}

func (p *parser) errorf(msg string) error {
	return &SyntaxError{Path: p.src, Offset: p.pos, Msg: msg}
}

func (p *parser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

// segments parses segments until the end of the source or, inside a filter,
// until a character that cannot continue a path.
func (p *parser) segments(inFilter bool) ([]segment, error) {
	var segs []segment
	for p.pos < len(p.src) {
		c := p.peek()
		switch {
		case c == '.':
			p.pos++
			descend := false
			if p.peek() == '.' {
				descend = true
				p.pos++
			}
			var s segment
			var err error
			switch p.peek() {
			case '[':
				if !descend {
					return nil, p.errorf("unexpected '[' after '.'")
				}
				s, err = p.bracket()
			case '*':
				p.pos++
				s = segment{kind: segWildcard}
			default:
				s, err = p.dotName()
			}
			if err != nil {
				return nil, err
			}
			s.descend = descend
			segs = append(segs, s)
		case c == '[':
			s, err := p.bracket()
			if err != nil {
				return nil, err
			}
			segs = append(segs, s)
		case inFilter:
			return segs, nil
		default:
			return nil, p.errorf("unexpected character " + strconv.QuoteRune(rune(c)))
		}
	}
	return segs, nil
}

func (p *parser) dotName() (segment, error) {
	start := p.pos
	for p.pos < len(p.src) {
		c := rune(p.src[p.pos])
		if c == '.' || c == '[' || unicode.IsSpace(c) || strings.ContainsRune("()=!<>&|,'\"]", c) {
			break
		}
		p.pos++
	}
	if p.pos == start {
		return segment{}, p.errorf("expected a property name")
	}
	return segment{kind: segName, names: []string{p.src[start:p.pos]}}, nil
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
}

func (p *parser) expect(c byte) error {
	p.skipSpace()
	if p.peek() != c {
		return p.errorf("expected " + strconv.QuoteRune(rune(c)))
	}
	p.pos++
	return nil
}

func (p *parser) bracket() (segment, error) {
	p.pos++ // '['
	p.skipSpace()
	switch c := p.peek(); {
	case c == '\'' || c == '"':
		var names []string
		for {
			p.skipSpace()
			name, err := p.quoted(false)
			if err != nil {
				return segment{}, err
			}
			names = append(names, name)
			p.skipSpace()
			if p.peek() != ',' {
				break
			}
			p.pos++
		}
		return segment{kind: segName, names: names}, p.expect(']')
	case c == '*':
		p.pos++
		return segment{kind: segWildcard}, p.expect(']')
	case c == '?':
		p.pos++
		if err := p.expect('('); err != nil {
			return segment{}, err
		}
		e, err := p.filterExpr()
		if err != nil {
			return segment{}, err
		}
		if err := p.expect(')'); err != nil {
			return segment{}, err
		}
		return segment{kind: segFilter, filter: e}, p.expect(']')
	default:
		return p.indexOrSlice()
	}
}

// quoted reads a quoted string. A backslash keeps the next character from
// ending it; unescape drops the backslash (filter literals), while a
// bracket name keeps it, as AWS does: $['Test\"Name'] names the key
// Test\"Name, backslash included (AWS's recorded
// test_escape_sequence_parsing).
func (p *parser) quoted(unescape bool) (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errorf("expected a quoted name")
	}
	p.pos++
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '\\' && p.pos+1 < len(p.src):
			if !unescape {
				b.WriteByte(c)
			}
			b.WriteByte(p.src[p.pos+1])
			p.pos += 2
		case c == q:
			p.pos++
			return b.String(), nil
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return "", p.errorf("unterminated quoted name")
}

func (p *parser) optInt() (*int, error) {
	p.skipSpace()
	start := p.pos
	if p.peek() == '-' {
		p.pos++
	}
	for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	if p.pos == start {
		return nil, nil
	}
	n, err := strconv.Atoi(p.src[start:p.pos])
	if err != nil {
		p.pos = start
		return nil, p.errorf("invalid integer")
	}
	return &n, nil
}

func (p *parser) indexOrSlice() (segment, error) {
	first, err := p.optInt()
	if err != nil {
		return segment{}, err
	}
	p.skipSpace()
	if p.peek() == ':' {
		s := segment{kind: segSlice}
		s.slice[0] = first
		for i := 1; i < 3 && p.peek() == ':'; i++ {
			p.pos++
			if s.slice[i], err = p.optInt(); err != nil {
				return segment{}, err
			}
			p.skipSpace()
		}
		if s.slice[2] != nil && *s.slice[2] <= 0 {
			return segment{}, p.errorf("slice step must be positive")
		}
		return s, p.expect(']')
	}
	if first == nil {
		return segment{}, p.errorf("expected an index, a quoted name, '*', a slice or a filter")
	}
	idx := []int{*first}
	for p.peek() == ',' {
		p.pos++
		n, err := p.optInt()
		if err != nil {
			return segment{}, err
		}
		if n == nil {
			return segment{}, p.errorf("expected an index")
		}
		idx = append(idx, *n)
		p.skipSpace()
	}
	return segment{kind: segIndex, indexes: idx}, p.expect(']')
}
