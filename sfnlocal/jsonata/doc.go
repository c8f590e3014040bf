// Package jsonata evaluates the JSONata expressions of states whose
// QueryLanguage is JSONata: the "{% … %}" strings in Arguments, Output,
// Assign, Items, ItemSelector, Condition and the other JSONata fields.
//
// Expressions see the reserved variable $states ({input, result,
// errorOutput, context}) and the workflow variables, plus the functions
// Step Functions adds to JSONata: $partition, $range, $hash, $random (with
// an optional seed), $uuid and $parse. $eval is not available, as on AWS.
//
// The language is package jsonata (top level), JSONata 2.0.6 as AWS runs it, checked
// against jsonata-js 2.0.6 itself. This package binds it to states:
// values in and out follow the sfnlocal convention (*jsonvalue.Object,
// []any, string, json.Number, bool, nil); integers come back as integers
// (3, not 3.0); objects keep their member order, whether a template
// writes them, an expression selects them or an expression builds them.
// An expression that evaluates to nothing (undefined) is an error, as on
// AWS, and every error is a States.QueryEvaluationError whose cause names
// the expression and the field it was written in, followed by jsonata-js's
// code and message ("… threw an error during evaluation. T2001: …").
// Parsed expressions are cached and evaluated concurrently; an evaluation
// never changes the values it is given, which the engine shares.
//
// Each evaluation gets an Env: its variables and the instant every $now()
// and $millis() answers, which the engine reads from its Clock once per
// field (all expressions of one Output share it), so a FakeClock drives
// them too. Each also gets a context: when it ends, a running evaluation
// stops within a few hundred steps and returns the context's error. The
// engine ends it when the execution is stopped, times out or the engine
// closes, and when a failing sibling aborts the Parallel branch or Map
// iteration evaluating it.
//
// Differences from AWS that remain (lang's own, with the cases that show
// them, are listed in lang/testdata/known_differences.txt):
//   - Regular expressions are Go's RE2: look-around and back-references
//     fail to parse (S0303).
//   - Numbers are doubles: integers beyond 2^53 lose precision and a
//     number's text is normalized (1.50 becomes 1.5).
//   - A NaN or infinite result (1/0) fails with D1001 "Number out of
//     range"; AWS's wording for it is unverified.
//   - Evaluation nests at most lang.DefaultMaxDepth steps (a recursion a
//     few thousand calls deep fails with U1001, where jsonata-js goes on
//     until memory runs out).
//   - Nothing bounds evaluation time: an endless loop (a tail call that
//     never returns) runs until its execution is stopped, times out or
//     the engine closes, or its branch or iteration is aborted. What AWS
//     reports for such a state is unknown; here the execution's own end
//     wins: the history shows ExecutionAborted or ExecutionTimedOut and
//     nothing from the stopped evaluation.
//   - No array, sequence or object one evaluation builds may hold more
//     than lang.DefaultMaxItems (2^24) members, and no string more than
//     lang.DefaultMaxStringBytes (64 MiB); a walk over a value (a copy,
//     the result copied out) visits at most DefaultMaxItems members
//     however often it shares an array. All the values one evaluation
//     builds, kept or dropped, may hold at most
//     lang.DefaultMaxTotalItems (2^25) members and
//     lang.DefaultMaxTotalStringBytes (256 MiB) of strings together, so
//     no expression can take more than about a gigabyte, however it
//     loops (16 ranges of ten million members, 6 GB unbounded, fail at
//     the fourth). Beyond either limit the evaluation fails with a
//     code-less "Invalid array length" or "Invalid string length" (the
//     totals add what limit was passed), so growth stops instead of
//     exhausting the engine's memory. The limits are ours: jsonata-js
//     goes on until V8 refuses the length or runs out of memory, and what
//     AWS reports then is unknown.
//   - A stopped evaluation (its execution stopped or timed out, its
//     branch or iteration aborted) notices within 256 evaluation steps,
//     or within 16,384 members built, visited or compared inside a
//     built-in (ranges, aggregates, sorts, $distinct, $map and the other
//     higher-order functions, copies); a plain copy of one value (at most
//     2^24 members) finishes first. So the CPU is released within a few
//     milliseconds of StopExecution (BenchmarkStopReleasesCPU measures
//     it).
//   - Comparing (=, $distinct) or testing the truth of a value that shares
//     its arrays exponentially often walks every path: it uses no memory
//     but can run for an unbounded time, and its context is not consulted
//     during that walk.
//   - A transform (~> |path|update|) with $clone bound to a function that
//     returns its argument changes that value in place in jsonata-js, so
//     the input or a variable shows the update afterwards; here updates
//     go to a private copy of what $clone returned, so no expression
//     changes its input or variables (the result itself is the same).
//   - Input objects keep their text's member order; jsonata-js, reading
//     JSON with JSON.parse, moves integer-like keys ("1", "42") first.
//   - $parse accepts duplicate keys (the last wins), which AWS rejects.
package jsonata
