package jsonata

import (
	"regexp"
	"strings"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// typeSymbol is the signature symbol of a value.
func typeSymbol(v any) byte {
	switch v.(type) {
	case string:
		return 's'
	case float64:
		return 'n'
	case bool:
		return 'b'
	case nil:
		return 'l'
	case []any:
		return 'a'
	case *jsonvalue.Object:
		return 'o'
	case undefined:
		return 'm'
	}
	if isFunction(v) {
		return 'f'
	}
	return 'm'
}

var arrayTypeNames = map[string]string{
	"a": "arrays", "b": "booleans", "f": "functions", "n": "numbers", "o": "objects", "s": "strings",
}

// validate checks args against the signature and returns the arguments
// the function receives: the focus in place of a missing context
// argument, a lone value wrapped where an array is expected. Errors leave
// the function's name to the caller (withToken).
func (s *signature) validate(args []any, focus any) ([]any, error) {
	var token any = Undefined // the caller names the function
	var sb strings.Builder
	for _, a := range args {
		sb.WriteByte(typeSymbol(a))
	}
	supplied := sb.String()
	m := s.re.FindStringSubmatch(supplied)
	if m == nil {
		return nil, s.mismatch(args, supplied, token)
	}
	out := make([]any, 0, len(s.params))
	argIndex := 0
	argAt := func(i int) any {
		if i < len(args) {
			return args[i]
		}
		return Undefined
	}
	for i, p := range s.params {
		arg := argAt(argIndex)
		match := m[i+1]
		if match == "" {
			if p.context {
				if !p.contextRe.MatchString(string(typeSymbol(focus))) {
					return nil, errAt("T0411", 0, inserts{"index": float64(argIndex + 1), "token": token, "value": focus})
				}
				out = append(out, focus)
			} else {
				out = append(out, arg)
				argIndex++
			}
			continue
		}
		for _, single := range []byte(match) {
			if p.typ != "a" {
				out = append(out, arg)
				argIndex++
				continue
			}
			if single == 'm' {
				out = append(out, Undefined)
				argIndex++
				continue
			}
			a := argAt(argIndex)
			if p.subtype != "" && !arrayMembersMatch(a, single, match, p.subtype) {
				return nil, errAt("T0412", 0, inserts{"index": float64(argIndex + 1), "token": token, "type": typeNameOrUndefined(p.subtype), "value": a})
			}
			if single != 'a' {
				a = []any{a}
			}
			out = append(out, a)
			argIndex++
		}
	}
	return out, nil
}

func typeNameOrUndefined(sub string) any {
	if n, ok := arrayTypeNames[sub]; ok {
		return n
	}
	return Undefined
}

func arrayMembersMatch(a any, single byte, match, subtype string) bool {
	if single != 'a' {
		return match == subtype
	}
	arr := a.([]any)
	if len(arr) == 0 {
		return true
	}
	t := typeSymbol(arr[0])
	if t != subtype[0] {
		return false
	}
	for _, v := range arr {
		if typeSymbol(v) != t {
			return false
		}
	}
	return true
}

// mismatch finds the first argument the signature rejects.
func (s *signature) mismatch(args []any, supplied string, token any) error {
	partial := "^"
	goodTo := 0
	fail := func() error {
		var v any = Undefined
		if goodTo < len(args) {
			v = args[goodTo]
		}
		return errAt("T0410", 0, inserts{"index": float64(goodTo + 1), "token": token, "value": v})
	}
	for _, p := range s.params {
		partial += p.pattern
		loc := regexp.MustCompile(partial).FindStringIndex(supplied)
		if loc == nil {
			return fail()
		}
		goodTo = loc[1]
	}
	return fail()
}
