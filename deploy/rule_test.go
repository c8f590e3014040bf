package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/sfnapprovals/approvals/workflow"
)

// ruleEvents are AWS's documented execution status change events (Step
// Functions Developer Guide, "EventBridge (CloudWatch Events) for Step
// Functions execution status changes", docs.aws.amazon.com/step-functions/
// latest/dg/cw-events.html: Execution Started, Succeeded, Failed, Timed
// Out, Aborted) and the local engine's golden events.
func ruleEvents(t *testing.T) []map[string]any {
	t.Helper()
	files := []string{"testdata/aws_status_change_events.json"}
	engine, err := filepath.Glob("../workflow/sfnlocal/testdata/events/*.json")
	if err != nil || len(engine) == 0 {
		t.Fatalf("the engine's golden events: %v (%d files)", err, len(engine))
	}
	var all []map[string]any
	for _, f := range append(files, engine...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var list []map[string]any
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		all = append(all, list...)
	}
	return all
}

// rulePattern is the EventPattern of ExecutionStatusRule with its
// condition and parameters resolved: every state machine with arns nil,
// those listed otherwise.
func rulePattern(t *testing.T, arns []string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("cloudformation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var tmpl struct {
		Resources map[string]struct {
			Type       string               `yaml:"Type"`
			Properties map[string]yaml.Node `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := doc.Decode(&tmpl); err != nil {
		t.Fatal(err)
	}
	rule, ok := tmpl.Resources["ExecutionStatusRule"]
	if !ok || rule.Type != "AWS::Events::Rule" {
		t.Fatalf("no AWS::Events::Rule ExecutionStatusRule")
	}
	node := rule.Properties["EventPattern"]
	v, err := ruleResolve(&node, arns)
	if err != nil {
		t.Fatal(err)
	}
	pattern, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("EventPattern is %T", v)
	}
	return pattern
}

// ruleResolve evaluates the two intrinsics the pattern may use: !If on
// AllStateMachines and !Ref StateMachineArns.
func ruleResolve(n *yaml.Node, arns []string) (any, error) {
	switch {
	case n.Tag == "!If":
		if len(n.Content) != 3 || n.Content[0].Value != "AllStateMachines" {
			return nil, fmt.Errorf("line %d: unexpected !If", n.Line)
		}
		if arns == nil {
			return ruleResolve(n.Content[1], arns)
		}
		return ruleResolve(n.Content[2], arns)
	case n.Tag == "!Ref":
		if n.Value != "StateMachineArns" {
			return nil, fmt.Errorf("line %d: unexpected !Ref %s", n.Line, n.Value)
		}
		out := []any{}
		for _, a := range arns {
			out = append(out, a)
		}
		return out, nil
	case n.Kind == yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := ruleResolve(n.Content[i+1], arns)
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case n.Kind == yaml.SequenceNode:
		out := []any{}
		for _, c := range n.Content {
			v, err := ruleResolve(c, arns)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		return n.Value, nil
	}
	return nil, fmt.Errorf("line %d: %s %s is not supported in the rule test", n.Line, n.Tag, n.Value)
}

// patternMatches is EventBridge's matching for the patterns used here: a
// field's list of values matches when the event's value (or one of its
// values, for an array) equals one of them; nested objects match field by
// field; fields the pattern leaves out match anything.
func patternMatches(pattern, event map[string]any) bool {
	for key, want := range pattern {
		got, ok := event[key]
		switch want := want.(type) {
		case map[string]any:
			sub, isObject := got.(map[string]any)
			if !ok || !isObject || !patternMatches(want, sub) {
				return false
			}
		case []any:
			values := []any{got}
			if list, isList := got.([]any); isList {
				values = list
			}
			if !ok || !slices.ContainsFunc(values, func(v any) bool { return slices.Contains(want, v) }) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// The rule sends the events function every execution end AWS documents and
// the local engine emits, never a start; limited to a list of state
// machines, only theirs.
func TestExecutionStatusRuleMatchesEndedExecutionsOnly(t *testing.T) {
	t.Parallel()
	events := ruleEvents(t)
	statuses := map[string]bool{}
	for _, ev := range events {
		statuses[ev["detail"].(map[string]any)["status"].(string)] = true
	}
	for _, s := range []string{"RUNNING", "SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED"} {
		if !statuses[s] {
			t.Fatalf("no %s event among the samples", s)
		}
	}
	const listed = "arn:aws:states:us-east-1:012345678912:stateMachine:state-machine"
	for _, tt := range []struct {
		name string
		arns []string
	}{
		{"every state machine", nil},
		{"listed state machines", []string{listed, "arn:aws:states:us-east-1:012345678912:stateMachine:other"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pattern := rulePattern(t, tt.arns)
			for _, ev := range events {
				d := ev["detail"].(map[string]any)
				status, machine := d["status"].(string), d["stateMachineArn"].(string)
				want := workflow.ExecutionStatus(status).Ended() && (tt.arns == nil || machine == listed)
				if got := patternMatches(pattern, ev); got != want {
					t.Errorf("%s event of %s: matched %v, want %v", status, machine, got, want)
				}
			}
		})
	}
}

// Every status that ends an execution is in the pattern, and nothing else:
// the rule and workflow.ExecutionStatus.Ended agree.
func TestExecutionStatusRuleListsEveryEnd(t *testing.T) {
	t.Parallel()
	pattern := rulePattern(t, nil)
	listed, _ := pattern["detail"].(map[string]any)["status"].([]any)
	for _, s := range []workflow.ExecutionStatus{
		workflow.ExecutionRunning, workflow.ExecutionSucceeded, workflow.ExecutionFailed,
		workflow.ExecutionTimedOut, workflow.ExecutionAborted, workflow.ExecutionPendingRedrive,
	} {
		if in := slices.Contains(listed, any(string(s))); in != s.Ended() {
			t.Errorf("status %s in the pattern: %v, want %v", s, in, s.Ended())
		}
	}
}
