package jsonata

// processor is the post-parse stage: it turns chains of "." into paths of
// steps, attaches predicates, grouping, order-by and variable bindings to
// the steps they belong to, resolves parent (%) references, and marks
// tail calls in lambda bodies.
type processor struct {
	labels   int
	ancestry []*node
	depth    int
}

// maxTreeDepth bounds the depth of the syntax tree (a chain of 1 + 1 + ...
// nests to the left without nesting in the text).
const maxTreeDepth = 10000

func process(tree *node) (*node, error) {
	pr := &processor{}
	out, err := pr.process(tree)
	if err != nil {
		return nil, err
	}
	if out.typ == nParent || out.seeking != nil {
		return nil, errAt("S0217", out.pos, inserts{"token": typeName(out)})
	}
	markSimpleFields(out, map[*node]bool{})
	return out, nil
}

func (pr *processor) process(e *node) (*node, error) {
	pr.depth++
	defer func() { pr.depth-- }()
	if pr.depth > maxTreeDepth {
		return nil, errAt("U1001", e.pos, nil)
	}
	var out *node
	var err error
	switch e.typ {
	case nBinary:
		out, err = pr.binary(e)
	case nUnary:
		out, err = pr.negation(e)
	case nArray:
		out = &node{typ: nArray, pos: e.pos}
		for _, it := range e.items {
			v, err := pr.process(it)
			if err != nil {
				return nil, err
			}
			pushAncestry(out, v)
			out.items = append(out.items, v)
		}
	case nObject:
		out = &node{typ: nObject, pos: e.pos}
		for _, pair := range e.pairs {
			k, err := pr.process(pair[0])
			if err != nil {
				return nil, err
			}
			pushAncestry(out, k)
			v, err := pr.process(pair[1])
			if err != nil {
				return nil, err
			}
			pushAncestry(out, v)
			out.pairs = append(out.pairs, [2]*node{k, v})
		}
	case nFunction, nPartial:
		out = &node{typ: e.typ, pos: e.pos}
		for _, a := range e.args {
			v, err := pr.process(a)
			if err != nil {
				return nil, err
			}
			pushAncestry(out, v)
			out.args = append(out.args, v)
		}
		if out.proc, err = pr.process(e.proc); err != nil {
			return nil, err
		}
	case nLambda:
		out = &node{typ: nLambda, args: e.args, sig: e.sig, pos: e.pos}
		body, err := pr.process(e.body)
		if err != nil {
			return nil, err
		}
		out.body = tailCall(body)
	case nCondition:
		out = &node{typ: nCondition, pos: e.pos}
		if out.cond, err = pr.process(e.cond); err != nil {
			return nil, err
		}
		pushAncestry(out, out.cond)
		if out.then, err = pr.process(e.then); err != nil {
			return nil, err
		}
		pushAncestry(out, out.then)
		if e.els != nil {
			if out.els, err = pr.process(e.els); err != nil {
				return nil, err
			}
			pushAncestry(out, out.els)
		}
	case nTransform:
		out = &node{typ: nTransform, pos: e.pos}
		if out.lhs, err = pr.process(e.lhs); err != nil {
			return nil, err
		}
		if out.update, err = pr.process(e.update); err != nil {
			return nil, err
		}
		if e.del != nil {
			if out.del, err = pr.process(e.del); err != nil {
				return nil, err
			}
		}
	case nBlock:
		out = &node{typ: nBlock, pos: e.pos}
		for _, it := range e.items {
			v, err := pr.process(it)
			if err != nil {
				return nil, err
			}
			pushAncestry(out, v)
			if v.consArray || (v.typ == nPath && v.steps[0].consArray) {
				out.consArray = true
			}
			out.items = append(out.items, v)
		}
	case nName:
		out = &node{typ: nPath, steps: []*node{e}}
		if e.keepArray {
			out.keepSingletonArray = true
		}
	case nParent:
		out = &node{typ: nParent, slot: &slot{label: "!" + itoa(pr.labels), level: 1, index: len(pr.ancestry)}}
		pr.labels++
		pr.ancestry = append(pr.ancestry, out)
	case nString, nNumber, nValue, nWildcard, nDescendant, nVariable, nRegex, nPlaceholder:
		out = e
	case nOperator:
		switch e.op {
		case "and", "or", "in":
			e.typ = nName
			return pr.process(e)
		}
		return nil, errAt("S0201", e.pos, inserts{"token": e.op})
	case nEnd:
		return nil, errAt("S0207", e.pos, inserts{"token": "(end)"})
	default:
		return nil, errAt("S0206", e.pos, inserts{"token": tokenValue(e)})
	}
	if err != nil {
		return nil, err
	}
	if e.keepArray {
		out.keepArray = true
	}
	return out, nil
}

func (pr *processor) negation(e *node) (*node, error) {
	x, err := pr.process(e.lhs)
	if err != nil {
		return nil, err
	}
	if x.typ == nNumber {
		return &node{typ: nNumber, value: -x.value.(float64), pos: x.pos}, nil
	}
	out := &node{typ: nUnary, op: "-", pos: e.pos, lhs: x}
	pushAncestry(out, x)
	return out, nil
}

// tailCall marks a function call in tail position of a lambda body so
// that the evaluator applies it in a loop instead of recursing.
func tailCall(e *node) *node {
	switch e.typ {
	case nFunction:
		if e.predicate == nil {
			return &node{typ: nLambda, thunk: true, pos: e.pos, body: e}
		}
	case nCondition:
		c := *e
		c.then = tailCall(e.then)
		if e.els != nil {
			c.els = tailCall(e.els)
		}
		return &c
	case nBlock:
		if n := len(e.items); n > 0 {
			c := *e
			c.items = append(append([]*node(nil), e.items[:n-1]...), tailCall(e.items[n-1]))
			return &c
		}
	}
	return e
}

func itoa(i int) string { return jsText(float64(i)) }

// typeName is the jsonata-js name of a node's type, used in S0217.
func typeName(n *node) string {
	switch n.typ {
	case nPath:
		return "path"
	case nBinary:
		return "binary"
	case nUnary, nArray, nObject:
		return "unary"
	case nName:
		return "name"
	case nString:
		return "string"
	case nNumber:
		return "number"
	case nValue:
		return "value"
	case nWildcard:
		return "wildcard"
	case nDescendant:
		return "descendant"
	case nParent:
		return "parent"
	case nCondition:
		return "condition"
	case nBlock:
		return "block"
	case nBind:
		return "bind"
	case nRegex:
		return "regex"
	case nFunction:
		return "function"
	case nPartial:
		return "partial"
	case nVariable:
		return "variable"
	case nLambda:
		return "lambda"
	case nApply:
		return "apply"
	case nTransform:
		return "transform"
	case nSort:
		return "sort"
	case nPlaceholder, nOperator:
		return "operator"
	}
	return "(end)"
}
