package deploy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	engine, err := filepath.Glob("../sfnlocal/testdata/events/*.json")
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

// rulePattern is the EventPattern of ExecutionStatusRule evaluated for the
// deployment with params.
func rulePattern(t *testing.T, params map[string][]string) map[string]any {
	t.Helper()
	tmpl, err := readTemplate(params)
	if err != nil {
		t.Fatal(err)
	}
	if typ := tmpl.resourceType("ExecutionStatusRule"); typ != "AWS::Events::Rule" {
		t.Fatalf("ExecutionStatusRule is %q, want an AWS::Events::Rule", typ)
	}
	v, err := tmpl.value(tmpl.path("Resources", "ExecutionStatusRule", "Properties", "EventPattern"))
	if err != nil {
		t.Fatal(err)
	}
	pattern, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("EventPattern is %T", v)
	}
	return pattern
}

// value evaluates a property to JSON values: mappings, lists, strings,
// and intrinsics (a list from !Split, a string from the others); a branch
// of !If that is AWS::NoValue is nil.
func (t *template) value(n *yaml.Node) (any, error) {
	if n.Tag == "!If" {
		branch, err := t.ifBranch(n)
		if err != nil || isNoValue(branch) {
			return nil, err
		}
		return t.value(branch)
	}
	switch {
	case n.Kind == yaml.MappingNode && (len(n.Content) != 2 || !strings.HasPrefix(n.Content[0].Value, "Fn::") && n.Content[0].Value != "Ref"):
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := t.value(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			if v != nil {
				m[n.Content[i].Value] = v
			}
		}
		return m, nil
	case n.Kind == yaml.SequenceNode && (!strings.HasPrefix(n.Tag, "!") || strings.HasPrefix(n.Tag, "!!")):
		out := []any{}
		for _, c := range n.Content {
			v, err := t.value(c)
			if err != nil {
				return nil, err
			}
			if v != nil {
				out = append(out, v)
			}
		}
		return out, nil
	case n.Kind == yaml.ScalarNode && (!strings.HasPrefix(n.Tag, "!") || strings.HasPrefix(n.Tag, "!!")):
		return n.Value, nil
	}
	values, err := t.eval(n)
	if err != nil {
		return nil, err
	}
	if n.Tag == "!Split" || len(values) != 1 {
		out := []any{}
		for _, v := range values {
			out = append(out, v)
		}
		return out, nil
	}
	return values[0], nil
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
			var params map[string][]string
			if tt.arns != nil {
				params = map[string][]string{"StateMachineArns": tt.arns}
			}
			pattern := rulePattern(t, params)
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

// With StateMachineArns listed, the state machines the stack deploys are
// matched too, and only those deployed.
func TestExecutionStatusRuleMatchesTheDeployedWorkflows(t *testing.T) {
	t.Parallel()
	const listed = "arn:aws:states:us-east-1:123456789012:stateMachine:nightly-certs"
	params := everything()
	params["StateMachineArns"] = []string{listed}
	params["DeployPublishWithApprovalJSONata"] = []string{"false"}
	params["DeployApproveOrEscalate"] = []string{"false"}
	got := rulePattern(t, params)["detail"].(map[string]any)["stateMachineArn"]
	want := []any{listed,
		"arn:aws:states:us-east-1:123456789012:stateMachine:approvals-publish-with-approval",
		"arn:aws:states:us-east-1:123456789012:stateMachine:approvals-batch-with-approved-retries",
		"arn:aws:states:us-east-1:123456789012:stateMachine:approvals-batch-with-approved-retries-lambda"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stateMachineArn (-want +got):\n%s", diff)
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
