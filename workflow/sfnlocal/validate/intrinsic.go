package validate

import (
	"encoding/json"
	"errors"
	"strings"
)

var errNotIntrinsic = errors.New("not an intrinsic function call")

// intrinsics are the functions Step Functions provides, without "States.".
var intrinsics = map[string]bool{
	"Format": true, "StringToJson": true, "JsonToString": true, "Array": true,
	"ArrayPartition": true, "ArrayContains": true, "ArrayRange": true,
	"ArrayGetItem": true, "ArrayLength": true, "ArrayUnique": true,
	"Base64Encode": true, "Base64Decode": true, "Hash": true, "JsonMerge": true,
	"MathRandom": true, "MathAdd": true, "StringSplit": true, "UUID": true,
}

// checkIntrinsic checks the syntax of an intrinsic function call such as
// States.Format('Hi {}', $.name). Arity and argument types are left to the
// evaluator.
func checkIntrinsic(s string) error {
	rest, err := call(strings.TrimSpace(s))
	if err != nil {
		return err
	}
	if strings.TrimSpace(rest) != "" {
		return errNotIntrinsic
	}
	return nil
}

// call parses "States.Name(args)" at s's start and returns what follows.
func call(s string) (string, error) {
	if !strings.HasPrefix(s, "States.") {
		return "", errNotIntrinsic
	}
	open := strings.IndexByte(s, '(')
	if open < 0 || !intrinsics[s[len("States."):open]] {
		return "", errNotIntrinsic
	}
	s = strings.TrimLeft(s[open+1:], " ")
	if strings.HasPrefix(s, ")") {
		return s[1:], nil
	}
	for {
		var err error
		if s, err = argument(s); err != nil {
			return "", err
		}
		s = strings.TrimLeft(s, " ")
		switch {
		case strings.HasPrefix(s, ","):
			s = strings.TrimLeft(s[1:], " ")
		case strings.HasPrefix(s, ")"):
			return s[1:], nil
		default:
			return "", errNotIntrinsic
		}
	}
}

// argument parses one argument: a string, number, boolean, null, path or
// nested call.
func argument(s string) (string, error) {
	switch {
	case strings.HasPrefix(s, "'"):
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '\'':
				return s[i+1:], nil
			}
		}
		return "", errNotIntrinsic
	case strings.HasPrefix(s, "States."):
		return call(s)
	case strings.HasPrefix(s, "$"):
		end := argumentEnd(s)
		if checkPath(strings.TrimSpace(s[:end]), anyPath) != nil {
			return "", errNotIntrinsic
		}
		return s[end:], nil
	}
	end := argumentEnd(s)
	lit := strings.TrimSpace(s[:end])
	if lit == "true" || lit == "false" || lit == "null" {
		return s[end:], nil
	}
	if isJSONNumber(lit) {
		return s[end:], nil
	}
	return "", errNotIntrinsic
}

// argumentEnd finds the ',' or ')' ending an unquoted argument.
func argumentEnd(s string) int {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '(' || ch == '[':
			depth++
		case ch == ']':
			depth--
		case ch == ')':
			if depth == 0 {
				return i
			}
			depth--
		case ch == ',' && depth == 0:
			return i
		}
	}
	return len(s)
}

// isJSONNumber reports whether s is a JSON number literal.
func isJSONNumber(s string) bool {
	return s != "" && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) && json.Valid([]byte(s))
}
