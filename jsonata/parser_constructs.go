package jsonata

// call parses a function call, a partial application or, when left is
// the name function or λ, a lambda definition.
func (p *parser) call(t *node, left *node) (*node, error) {
	t.typ, t.proc = nFunction, left
	if p.curID != ")" {
		for {
			if p.cur.typ == nOperator && p.curID == "?" {
				t.typ = nPartial
				p.cur.typ = nPlaceholder
				t.args = append(t.args, p.cur)
				if err := p.advance("?", false); err != nil {
					return nil, err
				}
			} else {
				arg, err := p.expression(0)
				if err != nil {
					return nil, err
				}
				t.args = append(t.args, arg)
			}
			if p.curID != "," {
				break
			}
			if err := p.advance(",", false); err != nil {
				return nil, err
			}
		}
	}
	if err := p.advance(")", true); err != nil {
		return nil, err
	}
	if left.typ == nName && (left.op == "function" || left.op == "λ") {
		return p.lambda(t)
	}
	return t, nil
}

func (p *parser) lambda(t *node) (*node, error) {
	for i, arg := range t.args {
		if arg.typ != nVariable {
			return nil, errAt("S0208", arg.pos, inserts{"token": tokenValue(arg), "value": float64(i + 1)})
		}
	}
	t.typ, t.proc = nLambda, nil
	if p.curID == "<" {
		sigPos := p.cur.pos
		depth := 1
		text := "<"
		for depth > 0 && p.curID != "{" && p.curID != "(end)" {
			if err := p.advance("", false); err != nil {
				return nil, err
			}
			switch p.curID {
			case ">":
				depth--
			case "<":
				depth++
			}
			text += jsText(tokenValue(p.cur))
		}
		if err := p.advance(">", false); err != nil {
			return nil, err
		}
		sig, err := parseSignature(text)
		if err != nil {
			if e, ok := err.(*Error); ok {
				e.Position += sigPos
			}
			return nil, err
		}
		t.sig = sig
	}
	if err := p.advance("{", false); err != nil {
		return nil, err
	}
	body, err := p.expression(0)
	if err != nil {
		return nil, err
	}
	t.body = body
	if err := p.advance("}", false); err != nil {
		return nil, err
	}
	return t, nil
}

func (p *parser) block(t *node) (*node, error) {
	for p.curID != ")" {
		e, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		t.items = append(t.items, e)
		if p.curID != ";" {
			break
		}
		if err := p.advance(";", false); err != nil {
			return nil, err
		}
	}
	if err := p.advance(")", true); err != nil {
		return nil, err
	}
	t.typ = nBlock
	return t, nil
}

func (p *parser) arrayConstructor(t *node) (*node, error) {
	if p.curID != "]" {
		for {
			item, err := p.expression(0)
			if err != nil {
				return nil, err
			}
			if p.curID == ".." {
				r := &node{typ: nBinary, op: "..", pos: p.cur.pos, lhs: item}
				if err := p.advance("..", false); err != nil {
					return nil, err
				}
				if r.rhs, err = p.expression(0); err != nil {
					return nil, err
				}
				item = r
			}
			t.items = append(t.items, item)
			if p.curID != "," {
				break
			}
			if err := p.advance(",", false); err != nil {
				return nil, err
			}
		}
	}
	if err := p.advance("]", true); err != nil {
		return nil, err
	}
	t.typ = nArray
	return t, nil
}

// predicate parses left[expr], or left[] which keeps singleton arrays.
func (p *parser) predicate(t *node, left *node) (*node, error) {
	if p.curID == "]" {
		step := left
		for step != nil && step.typ == nBinary && step.op == "[" {
			step = step.lhs
		}
		step.keepArray = true
		if err := p.advance("]", false); err != nil {
			return nil, err
		}
		return left, nil
	}
	rhs, err := p.expression(0)
	if err != nil {
		return nil, err
	}
	t.typ, t.lhs, t.rhs = nBinary, left, rhs
	if err := p.advance("]", true); err != nil {
		return nil, err
	}
	return t, nil
}

func (p *parser) orderBy(t *node, left *node) (*node, error) {
	if err := p.advance("(", false); err != nil {
		return nil, err
	}
	for {
		var term sortTerm
		switch p.curID {
		case "<":
			if err := p.advance("<", false); err != nil {
				return nil, err
			}
		case ">":
			term.descending = true
			if err := p.advance(">", false); err != nil {
				return nil, err
			}
		}
		e, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		term.expr = e
		t.terms = append(t.terms, term)
		if p.curID != "," {
			break
		}
		if err := p.advance(",", false); err != nil {
			return nil, err
		}
	}
	if err := p.advance(")", false); err != nil {
		return nil, err
	}
	t.typ, t.lhs = nBinary, left
	return t, nil
}

// objectConstructor parses {k: v, ...}: a constructor when left is nil,
// a grouping of left otherwise.
func (p *parser) objectConstructor(t *node, left *node) (*node, error) {
	if p.curID != "}" {
		for {
			k, err := p.expression(0)
			if err != nil {
				return nil, err
			}
			if err := p.advance(":", false); err != nil {
				return nil, err
			}
			v, err := p.expression(0)
			if err != nil {
				return nil, err
			}
			t.pairs = append(t.pairs, [2]*node{k, v})
			if p.curID != "," {
				break
			}
			if err := p.advance(",", false); err != nil {
				return nil, err
			}
		}
	}
	if err := p.advance("}", true); err != nil {
		return nil, err
	}
	if left == nil {
		t.typ = nObject
	} else {
		t.typ, t.lhs = nBinary, left
	}
	return t, nil
}

func (p *parser) transform(t *node) (*node, error) {
	var err error
	if t.lhs, err = p.expression(0); err != nil {
		return nil, err
	}
	if err := p.advance("|", false); err != nil {
		return nil, err
	}
	if t.update, err = p.expression(0); err != nil {
		return nil, err
	}
	if p.curID == "," {
		if err := p.advance(",", false); err != nil {
			return nil, err
		}
		if t.del, err = p.expression(0); err != nil {
			return nil, err
		}
	}
	if err := p.advance("|", false); err != nil {
		return nil, err
	}
	t.typ = nTransform
	return t, nil
}
