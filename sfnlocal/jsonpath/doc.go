// Package jsonpath implements the JSONPath flavour of AWS Step Functions:
// reading Paths (InputPath, OutputPath, ItemsPath, "key.$" values),
// writing Reference Paths (ResultPath), resolving $$ (context object) and
// $name (variables), and expanding payload templates (Parameters,
// ResultSelector, ItemSelector, Assign).
//
// Evaluation follows the Jayway JSONPath library that AWS uses: a definite
// path (names and single indexes only) yields one value and fails with
// *NoMatchError when nothing matches; an indefinite path (wildcards, slices,
// unions, filters, descendants) always yields a []any, possibly empty, in
// document order (an object's members in their order, as Jayway keeps
// them). Documents are jsonvalue values (*jsonvalue.Object for objects);
// no function here mutates its input.
package jsonpath
