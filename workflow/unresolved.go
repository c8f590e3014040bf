package workflow

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// intrinsicCall matches an intrinsic function call such as
// States.Format('…', $.x), which Step Functions evaluates only under a
// key ending in ".$".
var intrinsicCall = regexp.MustCompile(`^States\.[A-Za-z0-9]+\s*\(`)

// unresolved reports whether s is a JSONPath path ($.x, $$.Task.Token, a
// $variable), a JSONata expression ({% … %}) or an intrinsic function
// call (States.Format(…)): text that Step Functions passes on as it is
// when the key lacks ".$" (JSONPath) or the state is not a JSONata state.
// No Slack ID, timestamp, execution ARN or task token looks like that.
func unresolved(s string) bool {
	t := strings.TrimSpace(s)
	return strings.HasPrefix(t, "$") || strings.Contains(t, "{%") || strings.Contains(t, "%}") || intrinsicCall.MatchString(t)
}

// contextPaths are the context object paths of the identity keys: what a
// state machine passes, in JSONPath and in JSONata.
var contextPaths = map[string][2]string{
	"taskToken":    {"$$.Task.Token", "$states.context.Task.Token"},
	"executionArn": {"$$.Execution.Id", "$states.context.Execution.Id"},
	"stateName":    {"$$.State.Name", "$states.context.State.Name"},
}

// resolveHint tells how to pass key so that Step Functions resolves it.
func resolveHint(key string) string {
	if p, ok := contextPaths[key]; ok {
		return fmt.Sprintf(`pass it as "%s.$": "%s" (JSONPath) or "%s": "{%% %s %%}" (JSONata)`, key, p[0], key, p[1])
	}
	return fmt.Sprintf(`add ".$" to the key ("%s.$": "$.path") in a JSONPath state, or write "%s": "{%% expression %%}" in a state whose QueryLanguage is JSONata`, key, key)
}

// describeUnresolved names what s is without quoting it in full: a short
// path is safe and helpful to quote, anything longer is summarised.
func describeUnresolved(s string) string {
	t := strings.TrimSpace(s)
	if len(t) <= 60 && !strings.ContainsFunc(t, unicode.IsControl) {
		return fmt.Sprintf("%q", t)
	}
	switch {
	case strings.HasPrefix(t, "$"):
		return "a JSONPath path or variable"
	case intrinsicCall.MatchString(t):
		return "an intrinsic function call"
	}
	return "a JSONata expression"
}

// unresolvedError is the error for an identity or ID field that holds an
// unresolved path or expression instead of its value.
func unresolvedError(key, value string) error {
	return Errorf(EINVALID, "%s holds %s, which Step Functions passed on unresolved: %s", key, describeUnresolved(value), resolveHint(key))
}

// tokenUnresolved reports whether a taskToken is not what $$.Task.Token
// resolves to: a path or expression, or text with spaces or control
// characters, which real tokens (long opaque base64-like strings) never
// hold.
func tokenUnresolved(t string) bool {
	return unresolved(t) || strings.ContainsFunc(t, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
}

// executionARNPattern is the shape of a Step Functions execution ARN, as
// the Service Authorization Reference lists the resource types:
//
//	arn:${Partition}:states:${Region}:${Account}:execution:${StateMachineName}:${ExecutionId}
//	arn:${Partition}:states:${Region}:${Account}:express:${StateMachineName}:${ExecutionId}:${ExpressId}
//	arn:${Partition}:states:${Region}:${Account}:execution:${StateMachineName}/${MapRunLabel}:${ExecutionId}
//	arn:${Partition}:states:${Region}:${Account}:express:${StateMachineName}/${MapRunLabel}:${ExecutionId}:${ExpressId}
//
// Partitions are aws, aws-cn, aws-us-gov, aws-iso, aws-iso-b, … Names are
// 1 to 80 characters without whitespace, brackets, wildcards, the special
// characters " # % \ ^ | ~ ` $ & , ; : / and control characters.
var executionARNPattern = func() *regexp.Regexp {
	// Names are checked for their length apart (maxARNName): a counted
	// repetition of this class made the pattern take 3 ms and 470 KB to
	// compile at every cold start.
	const name = "[^\\s\\p{Z}<>{}\\[\\]?*\"#%\\\\^|~`$&,;:/\\x00-\\x1f\\x7f-\\x9f]+"
	const machine = name + "(?:/" + name + ")?"
	return regexp.MustCompile(`^arn:aws(?:-[a-z]+)*:states:[a-z]{2,}(?:-[a-z]+)+-[0-9]+:[0-9]{12}:` +
		`(?:execution:` + machine + `:` + name + `|express:` + machine + `:` + name + `:` + name + `)$`)
}()

// maxARNName is the most characters of each name in an execution ARN.
const maxARNName = 80

// IsExecutionARN reports whether s has the shape of a Step Functions
// execution ARN: standard, express, or a distributed Map's child
// execution, in any partition.
func IsExecutionARN(s string) bool {
	if len(s) > MaxExecutionARN || !executionARNPattern.MatchString(s) {
		return false
	}
	// arn:partition:states:region:account:execution|express:names…, the
	// names separated by ':' and '/', which no name holds.
	names := strings.SplitN(s, ":", 7)[6]
	for name := range strings.FieldsFuncSeq(names, func(r rune) bool { return r == ':' || r == '/' }) {
		if utf8.RuneCountInString(name) > maxARNName {
			return false
		}
	}
	return true
}

// executionARNError explains why s is not an execution ARN without
// quoting it (it could hold anything, a task token included).
func executionARNError(s string) error {
	const example = "arn:aws:states:us-east-1:123456789012:execution:MyStateMachine:run-1"
	switch {
	case strings.Contains(s, ":stateMachine:"):
		return Errorf(EINVALID, "executionArn is a state machine ARN, not an execution ARN: %s, not $$.StateMachine.Id", resolveHint("executionArn"))
	case len(s) > MaxExecutionARN:
		return Errorf(EINVALID, "executionArn is longer than %d characters, so it is not an execution ARN", MaxExecutionARN)
	}
	return Errorf(EINVALID, "executionArn is not a Step Functions execution ARN such as %s: %s", example, resolveHint("executionArn"))
}
