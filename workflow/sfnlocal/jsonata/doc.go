// Package jsonata evaluates the JSONata expressions of states whose
// QueryLanguage is JSONata: the "{% … %}" strings in Arguments, Output,
// Assign, Items, ItemSelector, Condition and the other JSONata fields.
//
// Expressions see the reserved variable $states ({input, result,
// errorOutput, context}) and the workflow variables, plus the functions
// Step Functions adds to JSONata: $partition, $range, $hash, $random (with
// an optional seed), $uuid and $parse. $eval is not available, as on AWS.
//
// Values in and out follow the sfnlocal convention (*jsonvalue.Object,
// []any, string, json.Number, bool, nil); integers come back as integers
// (3, not 3.0). Template objects keep their member order, and so does an
// object an expression selects without building it anew. An expression that evaluates to nothing (undefined) is an error,
// as on AWS, and every error is a States.QueryEvaluationError whose cause
// names the expression and the field it was written in.
//
// The evaluator is github.com/blues/jsonata-go, a port of jsonata-js 1.5.
// It is preferred over github.com/xiatechs/jsonata-go, which rewrites
// expression text with regular expressions before parsing (corrupting
// string literals such as 'a.' & 'b' and removing /* */ from strings),
// rounds arithmetic to eight decimals (1/3 = 0.33333334) and adds
// non-standard functions, $eval among them. Neither is safe for
// concurrent evaluation (both set the name and context of shared built-in
// functions on every call), so evaluations here are serialized; compiled
// expressions are cached.
//
// Differences from AWS's JSONata 2.0.6 that remain:
//   - Syntax newer than jsonata-js 1.5 fails to parse: the # (position)
//     and @ (context) bindings and the % parent operator. (?? and ?:
//     came in jsonata-js 2.1, after AWS's 2.0.6, so AWS lacks them too.)
//   - $assert, $parseInteger and $formatInteger are missing.
//   - Numbers are doubles: integers beyond 2^53 lose precision and a
//     number's text is normalized (1.50 becomes 1.5).
//   - Inside an expression objects are Go maps: an object an expression
//     builds ({…}, $merge, $spread, …) comes out with its keys sorted,
//     $keys answers sorted, and $each, $spread and the * wildcard see
//     keys in random order.
//   - Error causes carry jsonata-js's codes (T2001, D3137…) but the
//     library's wording, which differs from jsonata-js's.
//   - A non-finite result (1/0) is an error, not "Infinity".
//   - Nothing bounds evaluation: unbounded recursion overflows the
//     goroutine stack and crashes the process, where AWS fails the state.
//   - $parse accepts duplicate keys (the last wins), which AWS rejects.
package jsonata
