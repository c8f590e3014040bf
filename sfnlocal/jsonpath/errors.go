package jsonpath

import "fmt"

// SyntaxError reports a malformed path.
type SyntaxError struct {
	Path   string
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSONPath %q at offset %d: %s", e.Path, e.Offset, e.Msg)
}

// NoMatchError reports a definite path that selects nothing. AWS reports it
// as States.Runtime (input and output paths) or States.ParameterPathFailure
// (payload templates).
type NoMatchError struct {
	Path string
	// Reason is AWS's JSONPath library's own sentence: "Missing property
	// in path $['a']" when a member on the way is missing, else "No
	// results for path: $['a']['b']". Empty for an undefined variable.
	Reason string
}

func (e *NoMatchError) Error() string {
	return fmt.Sprintf("the JSONPath %q could not be found in the input", e.Path)
}

// ResultPathError reports a ResultPath that cannot be applied to the input,
// which AWS reports as States.ResultPathMatchFailure.
type ResultPathError struct {
	Path string
	Msg  string
}

func (e *ResultPathError) Error() string {
	return fmt.Sprintf("unable to apply ResultPath %q to the input: %s", e.Path, e.Msg)
}

// FieldError reports a payload-template field that could not be evaluated.
// Field is the key as written in the definition, including its ".$" suffix.
type FieldError struct {
	Field string
	Value string
	Err   error
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("field %q (%q): %v", e.Field, e.Value, e.Err)
}

func (e *FieldError) Unwrap() error { return e.Err }
