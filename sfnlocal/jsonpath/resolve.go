package jsonpath

import (
	"strings"
	"unicode"
)

// IsReferencePath reports whether path is a valid Reference Path over the
// state input: only names and non-negative single indexes, no wildcards,
// slices, unions, filters or descendants, and no $$ or $variable prefix.
func IsReferencePath(path string) bool {
	p, err := parse(path)
	return err == nil && p.reference()
}

// Validate checks the syntax of path as the static validator needs it. Paths
// may start with $$ (context object) or $name (a variable). With reference
// set, path must also be a Reference Path over the state input.
func Validate(path string, reference bool) error {
	if reference {
		p, err := parse(path)
		if err != nil {
			return err
		}
		if !p.reference() {
			return &SyntaxError{Path: path, Msg: "not a reference path"}
		}
		return nil
	}
	_, rest, err := Split(path)
	if err != nil {
		return err
	}
	_, err = parse(rest)
	if se, ok := err.(*SyntaxError); ok {
		se.Path = path
	}
	return err
}

// Resolve evaluates path as Get does, choosing the document by prefix:
// "$$..." reads context, "$name..." reads the variable name from vars, and
// "$", "$." or "$[" read input. An undefined variable is a *NoMatchError.
func Resolve(path string, input, context any, vars map[string]any) (any, error) {
	name, rest, err := Split(path)
	if err != nil {
		return nil, err
	}
	var doc any
	switch name {
	case "":
		doc = input
	case "$":
		doc = context
	default:
		v, ok := vars[name]
		if !ok {
			return nil, &NoMatchError{Path: path}
		}
		doc = v
	}
	v, err := Get(doc, rest)
	switch e := err.(type) {
	case *NoMatchError:
		e.Path = path
	case *SyntaxError:
		e.Path = path
	}
	return v, err
}

// Split returns the document a path reads ("" for the state input, "$" for
// the context object, otherwise a variable name) and the path relative to
// that document, which starts with "$". It checks only the prefix; a
// malformed prefix is a *SyntaxError.
func Split(path string) (source, rest string, err error) {
	switch {
	case strings.HasPrefix(path, "$$"):
		return "$", path[1:], nil
	case path == "$" || strings.HasPrefix(path, "$.") || strings.HasPrefix(path, "$["):
		return "", path, nil
	case !strings.HasPrefix(path, "$"):
		return "", "", &SyntaxError{Path: path, Msg: "a path must start with '$'"}
	}
	end := 1
	for i, r := range path[1:] {
		if !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc)) {
			break
		}
		end = 1 + i + len(string(r))
	}
	if end == 1 {
		return "", "", &SyntaxError{Path: path, Offset: 1, Msg: "expected '.', '[', '$' or a variable name"}
	}
	return path[1:end], "$" + path[end:], nil
}
