// Package intrinsics parses and evaluates the Amazon States Language
// intrinsic functions (States.Format, States.Array, States.Hash, …) used in
// JSONPath payload templates.
//
// Behaviour follows what AWS does rather than what its documentation
// implies where the two differ: argument failures are reported as
// States.Runtime with the cause "Invalid arguments in States.<Name>",
// fractional numbers are truncated (Java int conversion) except by
// States.MathAdd, which rounds, and a seeded States.MathRandom draws from
// the java.util.Random sequence. Values are JSON values as decoded with
// UseNumber; numbers produced here are json.Number.
package intrinsics
