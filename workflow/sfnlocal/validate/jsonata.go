package validate

import (
	"fmt"
	"strings"
	"unicode"
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
// expression looks well-formed. Messages follow the JSONata parser's, which
// AWS reports without their "S0xxx: " prefix.
func lintJSONata(s string, errorOutput bool) (code, msg string) {
	var stack []byte
	operand := false // the previous token ends an operand
	pending := false // a binary or prefix operator still wants its operand
	closer := map[byte]byte{'(': ')', '[': ']', '{': '}'}
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			i++
			continue
		case ch == '/' && strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return CodeInvalidJSONata, "Comment has no closing tag"
			}
			i += end + 4
			continue
		case ch == '"' || ch == '\'' || ch == '`':
			end := quoted(s, i)
			if end < 0 {
				if ch == '`' {
					return CodeInvalidJSONata, "Quoted property name must be terminated with a backquote (`)"
				}
				return CodeInvalidJSONata, "String literal must be terminated by a matching quote"
			}
			i = end
			operand, pending = true, false
		case ch == '/' && !operand:
			end := quoted(s, i)
			if end < 0 {
				return CodeInvalidJSONata, "No terminating / in regular expression"
			}
			for i = end; i < len(s) && s[i] >= 'a' && s[i] <= 'z'; i++ {
			}
			operand, pending = true, false
		case ch == '(' || ch == '[' || ch == '{':
			stack = append(stack, ch)
			i++
			operand, pending = false, false
		case ch == ')' || ch == ']' || ch == '}':
			if len(stack) == 0 {
				return CodeInvalidJSONata, fmt.Sprintf("Unexpected token: %c", ch)
			}
			want := closer[stack[len(stack)-1]]
			if ch != want {
				return CodeInvalidJSONata, fmt.Sprintf("Expected %q, got %q", string(want), string(ch))
			}
			if pending {
				return CodeInvalidJSONata, fmt.Sprintf("The symbol %q cannot be used as a unary operator", string(ch))
			}
			stack = stack[:len(stack)-1]
			i++
			operand, pending = true, false
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
			operand, pending = true, false
		case ch >= '0' && ch <= '9':
			for i < len(s) && (isNameChar(rune(s[i])) || (s[i] == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9')) {
				i++
			}
			operand, pending = true, false
		case isNameChar(rune(ch)) || ch >= 0x80:
			j := i
			for j < len(s) && (isNameChar(rune(s[j])) || s[j] >= 0x80) {
				j++
			}
			word := s[i:j]
			i = j
			if operand && (word == "and" || word == "or" || word == "in") {
				operand, pending = false, true
			} else {
				operand, pending = true, false
			}
		case (ch == '*' || ch == '%') && !operand:
			// a wildcard, descendant or parent step, not an operator
			for i < len(s) && s[i] == ch {
				i++
			}
			operand, pending = true, false
		case ch == ';':
			i++
			operand, pending = false, false
		default:
			i++
			operand, pending = false, true
		}
	}
	if len(stack) > 0 {
		return CodeInvalidJSONata, fmt.Sprintf("Expected %q before end of expression", string(closer[stack[len(stack)-1]]))
	}
	if strings.TrimSpace(s) == "" || pending {
		return CodeInvalidJSONata, "Unexpected end of expression"
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
