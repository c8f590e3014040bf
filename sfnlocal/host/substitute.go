package host

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// placeholder matches a ${Name} left in a definition.
var placeholder = regexp.MustCompile(`\$\{[A-Za-z0-9_.:-]+\}`)

// Substitute fills the ${Name} placeholders of a definition with values,
// the way CloudFormation applies an AWS::StepFunctions::StateMachine's
// DefinitionSubstitutions: textually, anywhere in the text, with no
// escaping (a value is inserted as it is, so it must not hold a character
// that ends the JSON string or intrinsic argument around it: " \ or '),
// and repeatedly, so that a value may itself hold a ${Name}; values that
// refer to each other without end are an error, as they fail a stack.
// Names without a placeholder are ignored.
//
// Where CloudFormation leaves a placeholder without a value in the
// definition, where it fails only when an execution reaches it, Substitute
// returns an *UnfilledError naming every such placeholder. It also
// refuses a result that is no longer valid JSON.
func Substitute(definition []byte, values map[string]string) ([]byte, error) {
	text, err := replaceRepeatedly(string(definition), values)
	if err != nil {
		return nil, err
	}
	if left := Placeholders([]byte(text)); len(left) > 0 {
		return nil, &UnfilledError{Names: left}
	}
	if json.Valid(definition) && !json.Valid([]byte(text)) {
		return nil, fmt.Errorf(`substitute the definition's placeholders: the result is not valid JSON; a value holds a character that ends its JSON string (" or \ or a control character)`)
	}
	return []byte(text), nil
}

// UnfilledError names the placeholders Substitute had no value for.
type UnfilledError struct {
	Names []string // sorted, each once
}

func (e *UnfilledError) Error() string {
	quoted := make([]string, len(e.Names))
	for i, n := range e.Names {
		quoted[i] = "${" + n + "}"
	}
	return fmt.Sprintf("substitute the definition's placeholders: %s %s no value", strings.Join(quoted, ", "), plural(len(quoted), "has", "have"))
}

// Placeholders returns the names of the ${Name} placeholders in a
// definition, sorted, each once.
func Placeholders(definition []byte) []string {
	var names []string
	for _, p := range unfilled(string(definition)) {
		names = append(names, strings.TrimSuffix(strings.TrimPrefix(p, "${"), "}"))
	}
	return names
}

// replaceRepeatedly is Apache Commons' StringUtils.replaceEachRepeatedly,
// which CloudFormation's state machine handler uses: each pass replaces,
// left to right, every ${Name} with its value; passes repeat while they
// change the text, at most one more time than there are names.
func replaceRepeatedly(text string, values map[string]string) (string, error) {
	if text == "" || len(values) == 0 {
		return text, nil
	}
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	slices.Sort(names) // at most one name matches at a position, so the order changes nothing
	for ttl := len(names); ; ttl-- {
		if ttl < 0 {
			return "", fmt.Errorf("substitute the definition's placeholders: the values refer to each other without end (a value holds its own or another value's ${Name})")
		}
		next, replaced := replaceOnce(text, names, values)
		if !replaced {
			return text, nil
		}
		text = next
	}
}

func replaceOnce(text string, names []string, values map[string]string) (string, bool) {
	var b strings.Builder
	copied, replaced := 0, false
	for from := 0; ; {
		j := strings.Index(text[from:], "${")
		if j < 0 {
			break
		}
		j += from
		name, ok := nameAt(text[j+2:], names)
		if !ok {
			from = j + 2
			continue
		}
		b.WriteString(text[copied:j])
		b.WriteString(values[name])
		copied = j + len(name) + 3
		from, replaced = copied, true
	}
	if !replaced {
		return text, false
	}
	b.WriteString(text[copied:])
	return b.String(), true
}

// nameAt returns the name whose "Name}" rest begins with.
func nameAt(rest string, names []string) (string, bool) {
	for _, name := range names {
		if strings.HasPrefix(rest, name+"}") {
			return name, true
		}
	}
	return "", false
}

func unfilled(text string) []string {
	found := placeholder.FindAllString(text, -1)
	slices.Sort(found)
	return slices.Compact(found)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
