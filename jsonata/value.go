package jsonata

import (
	"context"
	"regexp"
	"time"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
)

type undefined struct{}

// Undefined is JSONata's "no value": a path that matched nothing, a
// missing argument, a function that returned nothing.
var Undefined any = undefined{}

// IsUndefined reports whether v is Undefined.
func IsUndefined(v any) bool { return v == Undefined }

// Function is a value that can be called: a lambda, a built-in or a
// partial application. Arity is the number of parameters it declares,
// which higher-order built-ins use to decide what to pass ($map passes
// value, index and array to a function that declares three).
type Function interface {
	Arity() int
}

// Regex is a regular expression literal (/ab+c/i). Go's RE2 syntax is
// used: look-around and back-references are not supported.
type Regex struct {
	Source string // the text between the slashes
	Flags  string // "i", "m", both or none
	Re     *regexp.Regexp

	pos int // where the literal ends in the expression, for errors
}

// Arity is 2: a regex is callable on a string and an index to search
// from, as in jsonata-js (so $map and $filter pass it the index).
func (*Regex) Arity() int { return 2 }

// Builtin is a function of the standard library, or one a caller adds
// (NewLibrary).
//
// Signature is a jsonata-js function signature ("<s-nn?:s>"). The
// evaluator validates arguments against it before calling Impl: a missing
// context argument ("-") is filled with the focus, a single value where
// an array is expected ("a<n>") is wrapped, a missing optional argument
// is Undefined, and a mismatch is a T0410/T0412 error. So Impl receives
// exactly one argument per parameter of the signature, of the declared
// types or Undefined.
type Builtin struct {
	Name      string // without the $
	Signature string
	Impl      func(c *Call, args []any) (any, error)
}

// Arity is the number of parameters in the signature.
func (b *Builtin) Arity() int { return signatureArity(b.Signature) }

// Call is what a built-in sees of the evaluation calling it.
type Call struct {
	Name     string // the function's name as called, without the $
	Position int    // where the call is in the expression, for errors
	Input    any    // the focus (context value) at the call
	env      callEnv
}

// callEnv is implemented by the evaluator.
type callEnv interface {
	apply(fn any, args []any) (any, error)
	now() time.Time
	random() float64
}

// Apply calls fn (a Function or *Regex) with args, as a lambda call in the
// expression would. Higher-order built-ins use it.
func (c *Call) Apply(fn any, args ...any) (any, error) { return c.env.apply(fn, args) }

// Now is the instant the evaluation started: every $now() and $millis() of
// one evaluation answers the same.
func (c *Call) Now() time.Time { return c.env.now() }

// Random is a number in [0, 1) from the evaluation's source.
func (c *Call) Random() float64 { return c.env.random() }

// Error is a JSONata error: a jsonata-js code ("T2001", "D3030", "S0203")
// and jsonata-js's message for it, with the position and token when the
// error is tied to a place in the expression. Where jsonata-js fails with
// a JavaScript error of its own (TypeError, RangeError, SyntaxError),
// which has no code, Code is "" and Message is JavaScript's text.
type Error struct {
	Code     string
	Message  string
	Position int    // 0 when unknown
	Token    string // "" when none
	Value    any    // the offending value, when jsonata-js reports one

	pending inserts // set while the message still waits for its token
	inserts inserts // what the message was rendered from, for renaming the token
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Options are the knobs of one evaluation. They are cheap to make: build
// the Library once and make Options per evaluation with its own Now and
// Context.
type Options struct {
	// Library is the function library; nil means the standard library.
	Library *Library
	// Context, when not nil, can stop the evaluation: once it is done,
	// evaluation stops at its next check and Evaluate returns
	// Context.Err(). Checks are made every 256 evaluation steps and, inside
	// the loops that take no steps (ranges, aggregates, sorts, $distinct,
	// copies, building values), every 16,384 members built, visited or
	// compared, so even an endless loop or a built-in working through
	// millions of members ends within a millisecond or so.
	Context context.Context
	// Now is the evaluation's clock; the zero time means time.Now().
	Now time.Time
	// Random is the source of $random and $shuffle; nil means math/rand.
	Random func() float64
	// MaxDepth bounds how deeply evaluation may nest (each step of an
	// expression and each non-tail lambda call counts); exceeding it is
	// error U1001, never a stack overflow. Zero means DefaultMaxDepth.
	MaxDepth int
	// MaxItems and MaxStringBytes bound each value the evaluation builds:
	// the members of one array, sequence or object (and the members one
	// walk over a value, such as a copy, may visit), and the bytes of one
	// string. Exceeding them fails the evaluation with a code-less
	// "Invalid array length" or "Invalid string length" error, so no
	// expression can exhaust memory by growing a value. Zero means
	// DefaultMaxItems and DefaultMaxStringBytes.
	MaxItems       int
	MaxStringBytes int
	// MaxTotalItems and MaxTotalStringBytes bound what the whole
	// evaluation builds: the members of all its arrays, sequences and
	// objects, and the bytes of all its strings, counted as they are built
	// whether they are kept or dropped. Exceeding them fails the
	// evaluation with a code-less "Invalid array length: …" or "Invalid
	// string length: …" error naming the limit. Zero means
	// DefaultMaxTotalItems and DefaultMaxTotalStringBytes.
	MaxTotalItems       int
	MaxTotalStringBytes int
}

// NumberText writes a number as JavaScript (and so JSONata) does, for
// callers converting results back to JSON text: the shortest digits that
// read back as f, in exponent form from 1e21 and below 1e-6 ("1e+21",
// "1e-7"); "NaN", "Infinity" and "-Infinity", which JSON cannot hold,
// are the caller's to refuse.
func NumberText(f float64) string { return js.NumberToString(f) }
