package jsonata

// jsonata-js marks some arrays as sequences: the results of paths and of
// some built-ins ($map, $filter, $keys, $match…). The evaluator turns a
// sequence of one value into that value and an empty one into undefined
// when the call finishes, and $distinct keeps an input's sequence-ness.

// fnSequencer is the evaluator's record of which arrays are sequences.
type fnSequencer interface {
	isSeq(v any) bool
	mark(a []any, f seqFlags) []any
}

// fnSequence is a built-in's result that jsonata-js builds as a sequence.
// Outside an evaluation (a built-in called directly) the sequence is
// resolved at once.
func fnSequence(c *Call, items []any) any {
	if s, ok := c.env.(fnSequencer); ok {
		return s.mark(items, fSeq)
	}
	switch len(items) {
	case 0:
		return Undefined
	case 1:
		return items[0]
	}
	return items
}

// fnIsSequence reports whether v is an array the evaluation holds as a
// sequence.
func fnIsSequence(c *Call, v any) bool {
	s, ok := c.env.(fnSequencer)
	return ok && s.isSeq(v)
}
