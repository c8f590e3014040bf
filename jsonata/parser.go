package jsonata

// The parser is a Pratt (top-down operator precedence) parser with
// jsonata-js's binding powers, so that expressions group and fail exactly
// as they do there.

// bindingPowers are the left binding powers of the symbols; a symbol
// missing here has none.
var bindingPowers = map[string]int{
	".": 75, "[": 80, "{": 70, "(": 80, "@": 80, "#": 80,
	"?": 20, "+": 50, "-": 50, "*": 60, "/": 60, "%": 60,
	"=": 40, "<": 40, ">": 40, "^": 40, "!=": 40, "<=": 40, ">=": 40, "~>": 40,
	"and": 30, "or": 25, "in": 40, "&": 50, ":=": 10,
}

// knownSymbols are the operator tokens the parser accepts.
var knownSymbols = map[string]bool{
	".": true, "[": true, "]": true, "{": true, "}": true, "(": true, ")": true,
	",": true, "@": true, "#": true, ";": true, ":": true, "?": true, "+": true,
	"-": true, "*": true, "/": true, "%": true, "|": true, "=": true, "<": true,
	">": true, "^": true, "**": true, "..": true, ":=": true, "!=": true,
	"<=": true, ">=": true, "~>": true, "and": true, "or": true, "in": true, "&": true,
}

// maxParseDepth bounds the nesting of the expression text, so that a
// pathological expression cannot overflow the stack.
const maxParseDepth = 1000

type parser struct {
	lex    *lexer
	cur    *node  // the current token as a node
	curID  string // its symbol: an operator, "(name)", "(literal)", "(regex)" or "(end)"
	srcLen int
	depth  int
}

// parse parses an expression into its processed syntax tree.
func parse(expr string) (*node, error) {
	p := &parser{lex: newLexer(expr)}
	p.srcLen = len(p.lex.src)
	if err := p.advance("", false); err != nil {
		return nil, err
	}
	tree, err := p.expression(0)
	if err != nil {
		return nil, err
	}
	if p.curID != "(end)" {
		return nil, errAt("S0201", p.cur.pos, inserts{"token": tokenValue(p.cur)})
	}
	return process(tree)
}

// tokenValue is the token's value as jsonata-js reports it in errors.
func tokenValue(n *node) any {
	switch n.typ {
	case nEnd:
		return "(end)"
	case nName, nVariable, nOperator:
		return n.op
	case nRegex:
		return n.regex
	}
	return n.value
}

// advance checks that the current token is id (when id is given) and
// moves to the next token.
func (p *parser) advance(id string, infix bool) error {
	if id != "" && p.curID != id {
		code := "S0202"
		if p.curID == "(end)" {
			code = "S0203"
		}
		return errAt(code, p.cur.pos, inserts{"token": tokenValue(p.cur), "value": id})
	}
	t, err := p.lex.next(infix)
	if err != nil {
		return finishLexError(err)
	}
	if t == nil {
		p.cur, p.curID = &node{typ: nEnd, pos: p.srcLen}, "(end)"
		return nil
	}
	n := &node{pos: t.pos}
	switch t.typ {
	case tokName:
		n.typ, n.op, p.curID = nName, t.value.(string), "(name)"
	case tokVariable:
		n.typ, n.op, p.curID = nVariable, t.value.(string), "(name)"
	case tokOperator:
		op := t.value.(string)
		if !knownSymbols[op] {
			return errAt("S0204", t.pos, inserts{"token": op})
		}
		n.typ, n.op, p.curID = nOperator, op, op
	case tokString:
		n.typ, n.value, p.curID = nString, t.value, "(literal)"
	case tokNumber:
		n.typ, n.value, p.curID = nNumber, t.value, "(literal)"
	case tokValue:
		n.typ, n.value, p.curID = nValue, t.value, "(literal)"
	case tokRegex:
		n.typ, n.regex, p.curID = nRegex, t.value.(*Regex), "(regex)"
	}
	p.cur = n
	return nil
}

// finishLexError renders the message of an error the lexer raised.
func finishLexError(err error) error {
	e, ok := err.(*Error)
	if !ok || e.Message != "" {
		return err
	}
	ins := inserts{}
	if e.Token != "" || e.Code == "S0103" {
		ins["token"] = e.Token
	}
	return errAt(e.Code, e.Position, ins)
}

func (p *parser) lbp() int {
	if p.curID == "(name)" || p.curID == "(literal)" || p.curID == "(regex)" || p.curID == "(end)" {
		return 0
	}
	return bindingPowers[p.curID]
}

// expression parses an expression whose operators bind tighter than rbp.
func (p *parser) expression(rbp int) (*node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxParseDepth {
		return nil, errAt("U1001", p.cur.pos, nil)
	}
	t, tid := p.cur, p.curID
	if err := p.advance("", true); err != nil {
		return nil, err
	}
	left, err := p.nud(t, tid)
	if err != nil {
		return nil, err
	}
	for rbp < p.lbp() {
		t, tid = p.cur, p.curID
		if err := p.advance("", false); err != nil {
			return nil, err
		}
		if left, err = p.led(t, tid, left); err != nil {
			return nil, err
		}
	}
	return left, nil
}

// nud handles a token in prefix position.
func (p *parser) nud(t *node, id string) (*node, error) {
	switch id {
	case "(name)", "(literal)", "(regex)", "(end)", "and", "or", "in":
		return t, nil
	case "-":
		e, err := p.expression(70)
		if err != nil {
			return nil, err
		}
		t.typ, t.lhs = nUnary, e
		return t, nil
	case "*":
		t.typ = nWildcard
		return t, nil
	case "**":
		t.typ = nDescendant
		return t, nil
	case "%":
		t.typ = nParent
		return t, nil
	case "(":
		return p.block(t)
	case "[":
		return p.arrayConstructor(t)
	case "{":
		return p.objectConstructor(t, nil)
	case "|":
		return p.transform(t)
	}
	return nil, errAt("S0211", t.pos, inserts{"token": tokenValue(t)})
}

// led handles a token in infix position with left as its left operand.
func (p *parser) led(t *node, id string, left *node) (*node, error) {
	switch id {
	case "(":
		return p.call(t, left)
	case "[":
		return p.predicate(t, left)
	case "{":
		return p.objectConstructor(t, left)
	case "^":
		return p.orderBy(t, left)
	case ":=":
		if left.typ != nVariable {
			return nil, errAt("S0212", left.pos, inserts{"token": tokenValue(left)})
		}
		rhs, err := p.expression(bindingPowers[":="] - 1)
		if err != nil {
			return nil, err
		}
		t.typ, t.lhs, t.rhs = nBinary, left, rhs
		return t, nil
	case "@", "#":
		rhs, err := p.expression(bindingPowers[id])
		if err != nil {
			return nil, err
		}
		if rhs.typ != nVariable {
			return nil, errAt("S0214", rhs.pos, inserts{"token": id})
		}
		t.typ, t.lhs, t.rhs = nBinary, left, rhs
		return t, nil
	case "?":
		then, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		t.typ, t.cond, t.then = nCondition, left, then
		if p.curID == ":" {
			if err := p.advance(":", false); err != nil {
				return nil, err
			}
			if t.els, err = p.expression(0); err != nil {
				return nil, err
			}
		}
		return t, nil
	}
	rhs, err := p.expression(bindingPowers[id])
	if err != nil {
		return nil, err
	}
	t.typ, t.lhs, t.rhs = nBinary, left, rhs
	return t, nil
}
