package intrinsics

import (
	"strconv"
	"strings"

	"github.com/sfnapprovals/approvals/sfnlocal/jsonpath"
)

// function is one States.* intrinsic: its accepted argument counts and its
// implementation, which receives the evaluated arguments and their nodes.
type function struct {
	minArgs, maxArgs int // maxArgs < 0: no limit
	call             func(args []any, nodes []node) (any, error)
}

var functions map[string]function

func init() {
	functions = map[string]function{
		"States.Format":         {1, -1, format},
		"States.StringToJson":   {1, 1, stringToJSON},
		"States.JsonToString":   {1, 1, jsonToString},
		"States.Array":          {0, -1, array},
		"States.ArrayPartition": {2, 2, arrayPartition},
		"States.ArrayContains":  {2, 2, arrayContains},
		"States.ArrayRange":     {3, 3, arrayRange},
		"States.ArrayGetItem":   {2, 2, arrayGetItem},
		"States.ArrayLength":    {1, 1, arrayLength},
		"States.ArrayUnique":    {1, 1, arrayUnique},
		"States.Base64Encode":   {1, 1, base64Encode},
		"States.Base64Decode":   {1, 1, base64Decode},
		"States.Hash":           {2, 2, hashFn},
		"States.JsonMerge":      {3, 3, jsonMerge},
		"States.MathRandom":     {2, 3, mathRandom},
		"States.MathAdd":        {2, 2, mathAdd},
		"States.StringSplit":    {2, 2, stringSplit},
		"States.UUID":           {0, 0, uuid},
	}
}

// IsCall reports whether s has the shape of an intrinsic function call,
// "States.Name(…)"; it does not check the arguments.
func IsCall(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "States.") && strings.Contains(s, "(") && strings.HasSuffix(s, ")")
}

// Validate parses expr and checks function names, the syntax of path
// arguments and argument counts, as the static validator needs it. The
// error is an *Error: ErrIntrinsicFailure for malformed syntax, reported
// before ErrRuntime for a wrong argument count.
func Validate(expr string) error {
	n, err := parseExpr(expr)
	if err != nil {
		return err
	}
	if err := checkPaths(expr, n); err != nil {
		return err
	}
	return checkArity(n)
}

// checkPaths checks the path arguments, which Eval leaves to its resolver.
func checkPaths(expr string, n node) error {
	if n.path != "" {
		if err := jsonpath.Validate(n.path, false); err != nil {
			return syntaxError(strings.TrimSpace(expr), err.Error())
		}
	}
	for _, a := range n.args {
		if err := checkPaths(expr, a); err != nil {
			return err
		}
	}
	return nil
}

func checkArity(n node) error {
	if n.fn == "" {
		return nil
	}
	f := functions[n.fn]
	if len(n.args) < f.minArgs || (f.maxArgs >= 0 && len(n.args) > f.maxArgs) {
		return invalid(n.fn, "wrong number of arguments: "+strconv.Itoa(len(n.args)))
	}
	for _, a := range n.args {
		if err := checkArity(a); err != nil {
			return err
		}
	}
	return nil
}

// Eval parses and evaluates the intrinsic call expr. Path arguments ($.x,
// $$.x, $name.x) are read through resolve, whose errors are returned
// unchanged; every other failure is an *Error. Eval is safe for concurrent
// use.
func Eval(expr string, resolve func(path string) (any, error)) (any, error) {
	n, err := parseExpr(expr)
	if err != nil {
		return nil, err
	}
	return evalNode(n, resolve)
}

func evalNode(n node, resolve func(string) (any, error)) (any, error) {
	switch {
	case n.fn != "":
		f := functions[n.fn]
		if len(n.args) < f.minArgs || (f.maxArgs >= 0 && len(n.args) > f.maxArgs) {
			return nil, invalid(n.fn, "wrong number of arguments: "+strconv.Itoa(len(n.args)))
		}
		args := make([]any, len(n.args))
		for i, a := range n.args {
			v, err := evalNode(a, resolve)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
		return f.call(args, n.args)
	case n.path != "":
		return resolve(n.path)
	}
	return n.lit, nil
}

func itoa(i int) string { return strconv.Itoa(i) }
