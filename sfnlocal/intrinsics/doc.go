// Package intrinsics parses and evaluates the Amazon States Language
// intrinsic functions (States.Format, States.Array, States.Hash, …) used in
// JSONPath payload templates.
//
// Behaviour follows what AWS does rather than what its documentation
// implies where the two differ: argument failures are reported as
// States.Runtime with the cause "Invalid arguments in States.<Name>",
// fractional numbers are truncated (Java int conversion) except by
// States.MathAdd, which rounds, and a seeded States.MathRandom draws from
// the java.util.Random sequence. Values are jsonvalue values (objects are
// *jsonvalue.Object and keep their member order); numbers produced here
// are json.Number. Membership tests (ArrayContains, ArrayUnique) compare
// objects by content, whatever their member order.
package intrinsics
