package jsonata

// nodeType is the kind of a syntax tree node. The parser produces raw
// nodes (binary "." and "[" among them); the post-parse stage
// (parser_process.go) rewrites them into the tree the evaluator walks,
// where locations are paths of steps and predicates are stages.
type nodeType uint8

const (
	nEnd      nodeType = iota // end of input, only while parsing
	nOperator                 // an operator token used as an operand, only while parsing
	nBinary
	nUnary // "-" negation
	nArray
	nObject
	nName
	nString
	nNumber
	nValue // true, false, null
	nWildcard
	nDescendant
	nParent
	nCondition
	nBlock
	nBind
	nRegex
	nFunction
	nPartial
	nPlaceholder // the ? of a partial application
	nVariable
	nLambda
	nApply
	nTransform
	nPath
	nSort
)

// node is one node of the syntax tree. Which fields are used depends on
// typ; the tree is immutable once Parse returns, so one tree serves any
// number of concurrent evaluations.
type node struct {
	typ   nodeType
	op    string // operator of nBinary/nUnary, name of nName/nVariable
	value any    // literal value of nString/nNumber/nValue
	pos   int    // position after the node's token, in UTF-16 units, as jsonata-js reports it

	lhs, rhs *node
	items    []*node    // array items, block expressions
	pairs    [][2]*node // object constructor members
	terms    []sortTerm // order-by terms (raw "^" and nSort)
	steps    []*node    // path steps

	proc   *node   // function/partial procedure
	args   []*node // function/partial arguments, lambda parameters
	body   *node   // lambda body
	sig    *signature
	thunk  bool // lambda wrapping a tail call
	regex  *Regex
	cond   *node
	then   *node
	els    *node
	update *node // transform
	del    *node // transform

	predicate []*stage // filters applied to this node's value (non-step use)
	stages    []*stage // filters and index bindings applied per step input
	group     *group

	focus    string // @$var binding on a step, when hasFocus
	index    string // #$var binding on a step, when hasIndex
	hasFocus bool
	hasIndex bool
	tuple    bool
	ancestor *slot
	slot     *slot // nParent
	seeking  []*slot

	keepArray          bool // [] on this step
	keepSingletonArray bool // a path with a [] step
	consArray          bool // array constructor as the first or last step of a path
	simpleField        bool // a path of one plain field name: evaluated directly on an object
}

// sortTerm is one term of an order-by clause.
type sortTerm struct {
	descending bool
	expr       *node
}

// stage is a filter predicate or an index binding within a step.
type stage struct {
	isIndex bool   // a #$var binding rather than a filter
	index   string // the variable of an index binding
	expr    *node  // a filter predicate
	pos     int
}

// group is an object constructor applied to a step or expression ({...}
// after a path: grouping).
type group struct {
	pairs [][2]*node
	pos   int
}

// slot is a parent (%) reference being resolved to the step it denotes.
type slot struct {
	label string
	level int
	index int
}
