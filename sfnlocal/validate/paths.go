package validate

import (
	"errors"

	"github.com/sfnapprovals/approvals/sfnlocal/jsonpath"
)

// pathRules says which JSONPath forms a field accepts.
type pathRules struct {
	// reference restricts the path to one node: names and indexes only,
	// no wildcards, filters, slices, unions or deep scans (ResultPath,
	// ItemsPath, SecondsPath, …).
	reference bool
	// context allows "$$" (the Context Object); variables allows "$name".
	context, variables bool
}

var (
	// anyPath is what ".$" values, InputPath and OutputPath accept.
	anyPath = pathRules{context: true, variables: true}
	// valuePath is a reference path that may read the context or a variable.
	valuePath = pathRules{reference: true, context: true, variables: true}
	// resultPath writes into the state input, so it starts at "$".
	resultPath = pathRules{reference: true}
)

var errNotPath = errors.New("not a JSONPath")

// checkPath checks a JSONPath with the engine's parser, then whether the
// field may read the document the path starts from.
func checkPath(p string, r pathRules) error {
	source, rest, err := jsonpath.Split(p)
	if err != nil {
		return err
	}
	switch source {
	case "":
	case "$":
		if !r.context {
			return errNotPath
		}
	default:
		if !r.variables {
			return errNotPath
		}
	}
	return jsonpath.Validate(rest, r.reference)
}
