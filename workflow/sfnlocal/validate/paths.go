package validate

import (
	"errors"
	"strings"
	"unicode"
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

// checkPath checks the syntax of a JSONPath expression.
func checkPath(p string, r pathRules) error {
	rest := ""
	switch {
	case strings.HasPrefix(p, "$$"):
		if !r.context {
			return errNotPath
		}
		rest = p[2:]
	case strings.HasPrefix(p, "$"):
		rest = p[1:]
		if rest != "" && rest[0] != '.' && rest[0] != '[' {
			if !r.variables {
				return errNotPath
			}
			n := identLen(rest)
			if n == 0 {
				return errNotPath
			}
			rest = rest[n:]
		}
	default:
		return errNotPath
	}
	for rest != "" {
		var err error
		switch rest[0] {
		case '.':
			rest, err = dotSegment(rest[1:], r)
		case '[':
			rest, err = bracketSegment(rest[1:], r)
		default:
			err = errNotPath
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// identLen is the length of the identifier (a variable name) at s's start.
func identLen(s string) int {
	for i, ch := range s {
		if !(ch == '_' || unicode.IsLetter(ch) || unicode.IsDigit(ch) || unicode.Is(unicode.Mn, ch) || unicode.Is(unicode.Mc, ch)) {
			return i
		}
	}
	return len(s)
}

// dotSegment reads what follows a '.': a name, '*' or a deep scan.
func dotSegment(s string, r pathRules) (string, error) {
	if strings.HasPrefix(s, ".") { // deep scan: "$..name"
		if r.reference {
			return "", errNotPath
		}
		s = s[1:]
		if strings.HasPrefix(s, "[") {
			return s, nil
		}
	}
	if strings.HasPrefix(s, "*") {
		if r.reference {
			return "", errNotPath
		}
		return s[1:], nil
	}
	n := strings.IndexAny(s, ".[] \t\r\n")
	if n < 0 {
		n = len(s)
	}
	if n == 0 || (n < len(s) && s[n] != '.' && s[n] != '[') {
		return "", errNotPath
	}
	name := s[:n]
	if r.reference && strings.ContainsAny(name, "()") {
		return "", errNotPath // a function such as length()
	}
	return s[n:], nil
}

// bracketSegment reads what follows a '[' up to and including its ']'.
func bracketSegment(s string, r pathRules) (string, error) {
	end, err := closingBracket(s)
	if err != nil {
		return "", err
	}
	body, rest := strings.TrimSpace(s[:end]), s[end+1:]
	switch {
	case body == "":
		return "", errNotPath
	case body == "*":
		if r.reference {
			return "", errNotPath
		}
	case strings.HasPrefix(body, "?(") || strings.HasPrefix(body, "("):
		if r.reference || !strings.HasSuffix(body, ")") {
			return "", errNotPath
		}
	case body[0] == '\'' || body[0] == '"':
		names := splitTop(body)
		if r.reference && len(names) > 1 {
			return "", errNotPath
		}
		for _, n := range names {
			n = strings.TrimSpace(n)
			if len(n) < 2 || n[0] != n[len(n)-1] || (n[0] != '\'' && n[0] != '"') {
				return "", errNotPath
			}
		}
	default:
		if !indexes(body, r.reference) {
			return "", errNotPath
		}
	}
	return rest, nil
}

// closingBracket finds the ']' closing a bracket segment, skipping quoted
// names and parenthesised filters.
func closingBracket(s string) (int, error) {
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
		case ch == ')':
			depth--
		case ch == ']':
			if depth == 0 {
				return i, nil
			}
			depth--
		}
	}
	return 0, errNotPath
}

// splitTop splits a bracket body on commas outside quotes.
func splitTop(s string) []string {
	var parts []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == ',':
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// indexes accepts "3", and unless reference is set "-1", "0,2" and slices
// such as "1:3" or "::2".
func indexes(body string, reference bool) bool {
	if reference {
		return isDigits(body)
	}
	for _, part := range strings.Split(body, ",") {
		part = strings.TrimSpace(part)
		slice := strings.Split(part, ":")
		if len(slice) > 3 {
			return false
		}
		for _, n := range slice {
			n = strings.TrimPrefix(strings.TrimSpace(n), "-")
			if n != "" && !isDigits(n) {
				return false
			}
		}
		if len(slice) == 1 && slice[0] == "" {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, ch := range s {
		if ch < '0' || ch > '9' {
			return false
		}
	}
	return true
}
