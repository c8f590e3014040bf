package jsonata

import (
	"fmt"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// DefaultMaxItems is the most members one array, sequence or object may
// have when Options.MaxItems is zero: 2^24, about 16.8 million (270 MB of
// slots). That lets the largest range jsonata-js allows (1e7 members,
// D2014) through, while an array that doubles each step stops after 24
// steps instead of exhausting memory. It also bounds how many members one
// walk over a value may visit (a deep copy, *, **, the output), which can
// reach exponentially many members of a value that shares its arrays.
const DefaultMaxItems = 1 << 24

// DefaultMaxStringBytes is the longest string one evaluation may build
// when Options.MaxStringBytes is zero: 64 MiB, 256 times the largest
// payload Step Functions accepts.
const DefaultMaxStringBytes = 64 << 20

// DefaultMaxTotalItems is how many members, all the arrays, sequences
// and objects one evaluation builds together may have when
// Options.MaxTotalItems is zero: 2^25, about 33.5 million, twice a value's
// limit, so the largest range jsonata-js allows can still be built and
// mapped once; 16 such ranges (6 GB) cannot.
const DefaultMaxTotalItems = 1 << 25

// DefaultMaxTotalStringBytes is how many bytes all the strings one
// evaluation builds may have together when Options.MaxTotalStringBytes is
// zero: 256 MiB, four values at their limit, 1,024 times the largest
// payload Step Functions accepts.
const DefaultMaxTotalStringBytes = 256 << 20

// budget bounds what one evaluation builds. Each array, sequence, object
// and string is checked against the per-value limits as it is built, and
// charged to the evaluation's totals, which count what was built whether
// it was kept or dropped: so neither one value nor many can exhaust
// memory. A walk over a value (a copy) counts the members it visits in
// items, reset at the start of each walk.
type budget struct {
	items int // members the current walk may still visit
	bytes int // the longest string allowed
	max   int // the most members a value may have, and a walk may visit

	totalItems, totalBytes int // what the evaluation may still build in all
	maxTotalItems          int
	maxTotalBytes          int
}

func newBudget(opts *Options) budget {
	b := budget{items: DefaultMaxItems, bytes: DefaultMaxStringBytes,
		maxTotalItems: DefaultMaxTotalItems, maxTotalBytes: DefaultMaxTotalStringBytes}
	if opts.MaxItems > 0 {
		b.items = opts.MaxItems
	}
	if opts.MaxStringBytes > 0 {
		b.bytes = opts.MaxStringBytes
	}
	if opts.MaxTotalItems > 0 {
		b.maxTotalItems = opts.MaxTotalItems
	}
	if opts.MaxTotalStringBytes > 0 {
		b.maxTotalBytes = opts.MaxTotalStringBytes
	}
	b.max = b.items
	b.totalItems, b.totalBytes = b.maxTotalItems, b.maxTotalBytes
	return b
}

// startWalk gives a new walk over a value its whole allowance.
func (s *state) startWalk() { s.budget.items = s.budget.max }

// errArrayLength and errStringLength are what exceeding the budget
// fails with: JavaScript's RangeError texts, without a code.
func errArrayLength() error  { return &Error{Message: "Invalid array length"} }
func errStringLength() error { return &Error{Message: "Invalid string length"} }

// errTotalItems and errTotalBytes are what exceeding the evaluation's
// totals fails with: code-less too, as jsonata-js has no code for running
// out of memory.
func (s *state) errTotalItems() error {
	return &Error{Message: fmt.Sprintf("Invalid array length: the evaluation built more than %d array and object members in all", s.budget.maxTotalItems)}
}

func (s *state) errTotalBytes() error {
	return &Error{Message: fmt.Sprintf("Invalid string length: the evaluation built more than %d bytes of strings in all", s.budget.maxTotalBytes)}
}

// chargeItems checks a value of n members being built and charges it to
// the evaluation's total; building is work, so it may also find the
// evaluation stopped.
func (s *state) chargeItems(n int) error {
	if n > s.budget.max {
		return errArrayLength()
	}
	if s.budget.totalItems -= n; s.budget.totalItems < 0 {
		return s.errTotalItems()
	}
	return s.tick(n)
}

// chargeBytes checks a string of n bytes being built and charges it to
// the evaluation's total.
func (s *state) chargeBytes(n int) error {
	if n > s.budget.bytes {
		return errStringLength()
	}
	if s.budget.totalBytes -= n; s.budget.totalBytes < 0 {
		return s.errTotalBytes()
	}
	return s.tick(n / 16)
}

// charge checks what v holds at its top level: a built-in's result, whose
// members were checked when they were built.
func (s *state) charge(v any) error {
	switch x := v.(type) {
	case string:
		return s.chargeBytes(len(x))
	case []any:
		return s.chargeItems(len(x))
	case *seq:
		return s.chargeItems(len(x.items))
	case *jsonvalue.Object:
		return s.chargeItems(x.Len())
	}
	return nil
}

// allocator is implemented by the evaluator; built-ins reach it through
// Call. Test doubles of callEnv need not implement it.
type allocator interface {
	startWalk()
	walkItems(n int) error
	remainingBytes() int
	tick(n int) error
}

func (s *state) remainingBytes() int { return s.budget.bytes }

// walkItems counts n members visited by the current walk.
func (s *state) walkItems(n int) error {
	s.budget.items -= n
	if s.budget.items < 0 {
		return errArrayLength()
	}
	return s.tick(n)
}

// startWalk begins a built-in's walk over a value (a deep copy).
func (c *Call) startWalk() {
	if a, ok := c.env.(allocator); ok {
		a.startWalk()
	}
}

// growItems counts n members copied by the current walk.
func (c *Call) growItems(n int) error {
	if a, ok := c.env.(allocator); ok {
		return a.walkItems(n)
	}
	return nil
}

// stringRoom is how many bytes a string a built-in writes may have.
func (c *Call) stringRoom() int {
	if a, ok := c.env.(allocator); ok {
		return a.remainingBytes()
	}
	return DefaultMaxStringBytes
}

// overBudget is what a recursive walk over a value (which can reach
// exponentially many members of a value that shares its arrays) panics
// with when it passes its limit; Evaluate recovers it as err.
type overBudget struct{ err error }

// checkRoom is called by such a walk as its result grows.
func checkRoom(used, limit int) {
	if used > limit {
		panic(overBudget{errArrayLength()})
	}
}

// Tick counts n units of work a built-in does (members it visits,
// comparisons it makes) and returns the evaluation's context error once
// that context is done: a built-in looping over a large value calls it as
// it goes, so a stopped evaluation releases the CPU within a few thousand
// units of work. It returns nil for a Call outside an evaluation.
func (c *Call) Tick(n int) error {
	if a, ok := c.env.(allocator); ok {
		return a.tick(n)
	}
	return nil
}
