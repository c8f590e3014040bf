package validate

import (
	"errors"

	"strings"
	"unicode"

	lang "github.com/sfnapprovals/approvals/jsonata"
)

// jsonataExpr returns the expression inside a "{% … %}" string.
func jsonataExpr(v any) (string, bool) {
	s, ok := v.(string)
	if !ok || !strings.HasPrefix(s, "{%") || !strings.HasSuffix(s, "%}") || len(s) < 4 {
		return "", false
	}
	return s[2 : len(s)-2], true
}

// jsonataValues checks every "{% %}" string inside a JSONata state's field
// value, reporting each at its own location (".../Output/v").
// errorOutput is true inside a catcher, the one place $states.errorOutput
// exists.
func (c *checker) jsonataValues(loc string, v any, errorOutput bool) {
	switch v := v.(type) {
	case string:
		if expr, ok := jsonataExpr(v); ok {
			c.jsonataExpression(loc, expr, errorOutput)
		}
	case map[string]any:
		for _, k := range sortedKeys(v) {
			c.jsonataValues(child(loc, k), v[k], errorOutput)
		}
	case []any:
		for i, e := range v {
			c.jsonataValues(index(loc, i), e, errorOutput)
		}
	}
}

// jsonataExpression reports an expression that cannot parse, or that reads
// what Step Functions does not provide. It checks tokens and nesting only;
// nothing is evaluated.
func (c *checker) jsonataExpression(loc, expr string, errorOutput bool) {
	if code, msg := lintJSONata(expr, errorOutput); code != "" {
		c.add(SeverityError, code, loc, "%s", msg)
	}
}

// lintJSONata returns a diagnostic code and message, or "" when the
// expression is valid JSONata that uses only what Step Functions provides.
// Syntax is checked by the JSONata parser the engine runs; AWS reports its
// message without the "S0xxx: " prefix.
func lintJSONata(s string, errorOutput bool) (code, msg string) {
	if _, err := lang.Parse(s); err != nil {
		var le *lang.Error
		if errors.As(err, &le) {
			return CodeInvalidJSONata, le.Message
		}
		return CodeInvalidJSONata, err.Error()
	}
	return unsupportedJSONata(s, errorOutput)
}

// unsupportedJSONata scans a parsed expression's tokens for what Step
// Functions does not provide: the $$ root reference, and
// $states.errorOutput outside a catcher. Strings, quoted names, comments
// and regular expressions are skipped.
func unsupportedJSONata(s string, errorOutput bool) (code, msg string) {
	operand := false // the previous token ends an operand, so / divides
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			i++
		case ch == '/' && strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return "", ""
			}
			i += end + 4
		case ch == '"' || ch == '\'' || ch == '`' || (ch == '/' && !operand):
			end := quoted(s, i)
			if end < 0 {
				return "", ""
			}
			for i = end; ch == '/' && i < len(s) && s[i] >= 'a' && s[i] <= 'z'; i++ {
			}
			operand = true
		case ch == '$':
			j := i + 1
			if j < len(s) && s[j] == '$' {
				return CodeUnsupportedJSONata, "Reference to '$$' is not supported."
			}
			for j < len(s) && isNameChar(rune(s[j])) {
				j++
			}
			if s[i+1:j] == "states" && !errorOutput && strings.HasPrefix(s[j:], ".errorOutput") &&
				!isNameChar(rune(at(s, j+len(".errorOutput")))) {
				return CodeUnsupportedJSONata, "Field '$states.errorOutput' does not exist."
			}
			i = j
			operand = true
		case isNameChar(rune(ch)) || ch >= 0x80:
			j := i
			for j < len(s) && (isNameChar(rune(s[j])) || s[j] >= 0x80 || (s[j] == '.' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9')) {
				j++
			}
			word := s[i:j]
			i = j
			operand = !(word == "and" || word == "or" || word == "in")
		case ch == ')' || ch == ']' || ch == '}':
			i++
			operand = true
		default:
			i++
			operand = false
		}
	}
	return "", ""
}

// quoted returns the index after the closing quote of the string, backquoted
// name or regular expression starting at s[i], or -1.
func quoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if q != '`' {
				j++
			}
		case q:
			return j + 1
		}
	}
	return -1
}

func isNameChar(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return ' '
}
