// Package jsonata is JSONata 2.x for Go, as AWS Step Functions runs it
// (jsonata-js 2.0.6): the parser, the evaluator with JSONata's sequence
// semantics, and the standard function library. It knows nothing of Step
// Functions and can be used on its own; the local engine's package
// sfnlocal/jsonata binds it to states ($states, the functions AWS adds,
// AWS's error texts). README.md beside this file says how it is tested and
// where it differs from jsonata-js.
//
// Values are Go values:
//
//	Undefined           JSONata's undefined (no value); never inside an array or object
//	nil                 JSON null
//	bool, string        themselves
//	float64             every number (JSONata numbers are IEEE doubles)
//	[]any               arrays
//	*jsonvalue.Object   objects, members in insertion order (package jsonvalue)
//	Function            lambdas, built-ins and partial applications
//	*Regex              regular expression literals
//
// Callers convert JSON into these values (json.Number becomes float64)
// before evaluating and convert results back. A parsed Expr is immutable
// and safe for concurrent evaluation; each evaluation has its own state
// and never changes its input or bindings, so callers may share them
// between evaluations. Options are per evaluation: a Library (built once
// with NewLibrary) adds or removes functions, Now fixes the clock and
// Context can stop an evaluation that would never end.
//
// The package is the language: lexer*, parser*, ast and signature*
// read an expression; eval* evaluate it; stdlib* list the standard
// library and fn_* implement it. Two internal packages serve it:
// internal/picture formats and parses numbers and dates with XPath
// picture strings ($formatNumber, $fromMillis…), and internal/js
// reproduces the JavaScript behaviour jsonata-js inherits (number text,
// parseInt, Date.UTC, UTF-16 order, case mapping).
//
// Conformance is checked against jsonata-js 2.0.6 itself: the cases in
// testdata/*.cases.json are written by hand, and testdata/*.golden.json
// holds what jsonata-js answered for them (make jsonata-golden).
package jsonata
