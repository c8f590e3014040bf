package deploy

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// template is cloudformation.yaml, evaluated for one imagined deployment.
type template struct {
	root   *yaml.Node
	params map[string][]string // parameter → value (a list for CommaDelimitedList)
	attrs  map[string]string   // "Logical.Attribute" → value
}

// The deployment the template is evaluated for.
const (
	partition = "aws"
	region    = "us-east-1"
	account   = "123456789012"
	stackName = "approvals"
	secretARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:approvals/slack-AbCdEf"
)

// required are the deployment's values of the parameters without a
// default.
var required = map[string][]string{
	"NotifierCodeBucket": {"approvals-artifacts"},
	"NotifierCodeKey":    {"notifier/1a2b3c4.zip"},
	"EventsCodeKey":      {"events/1a2b3c4.zip"},
	"ArchiveCodeKey":     {"archive/1a2b3c4.zip"},
	"BotImage":           {"123456789012.dkr.ecr.us-east-1.amazonaws.com/approvals-bot@sha256:0123"},
	"SlackSecretArn":     {secretARN},
	"Subnets":            {"subnet-aaa", "subnet-bbb"},
}

func parseTemplate(text []byte, params map[string][]string) (*template, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, fmt.Errorf("parse template: %w", err)
	}
	t := &template{root: doc.Content[0], params: map[string][]string{
		"AWS::Partition": {partition}, "AWS::Region": {region}, "AWS::AccountId": {account}, "AWS::StackName": {stackName},
	}}
	// Parameters take their defaults unless params says otherwise.
	if ps := t.get(t.root, "Parameters"); ps != nil {
		for i := 0; i < len(ps.Content); i += 2 {
			name, p := ps.Content[i].Value, ps.Content[i+1]
			if d := t.get(p, "Default"); d != nil {
				t.params[name] = []string{d.Value}
				if typ := t.get(p, "Type"); typ != nil && typ.Value == "CommaDelimitedList" {
					t.params[name] = strings.Split(d.Value, ",")
				}
			}
		}
	}
	for k, v := range required {
		t.params[k] = v
	}
	for k, v := range params {
		t.params[k] = v
	}
	table := t.params["TableName"]
	if len(table) != 1 {
		return nil, fmt.Errorf("parameter TableName has no single value")
	}
	t.attrs = map[string]string{
		"ApprovalsTable.Arn":        fmt.Sprintf("arn:%s:dynamodb:%s:%s:table/%s", partition, region, account, table[0]),
		"NotifierLogGroup.Arn":      fmt.Sprintf("arn:%s:logs:%s:%s:log-group:/aws/lambda/%s-notifier:*", partition, region, account, stackName),
		"NotifierRole.Arn":          "NotifierRole",
		"EventsLogGroup.Arn":        fmt.Sprintf("arn:%s:logs:%s:%s:log-group:/aws/lambda/%s-events:*", partition, region, account, stackName),
		"EventsRole.Arn":            "EventsRole",
		"EventsDeadLetterQueue.Arn": fmt.Sprintf("arn:%s:sqs:%s:%s:%s-events-dlq", partition, region, account, stackName),
		"NotifierFunction.Arn":      fmt.Sprintf("arn:%s:lambda:%s:%s:function:%s-notifier", partition, region, account, stackName),
		"BotTaskRole.Arn":           "BotTaskRole",
		"BotExecutionRole.Arn":      "BotExecutionRole",
		"ApprovalsTable.StreamArn":  fmt.Sprintf("arn:%s:dynamodb:%s:%s:table/%s/stream/2026-01-01T00:00:00.000", partition, region, account, table[0]),
		"AuditArchiveLogGroup.Arn":  fmt.Sprintf("arn:%s:logs:%s:%s:log-group:/%s/audit-archive:*", partition, region, account, stackName),
		"ArchiveRole.Arn":           "ArchiveRole",
	}
	return t, nil
}

func readTemplate(params map[string][]string) (*template, error) {
	text, err := os.ReadFile("cloudformation.yaml")
	if err != nil {
		return nil, err
	}
	return parseTemplate(text, params)
}

// get returns the value under key in a mapping node, or nil.
func (t *template) get(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// path follows keys from the template's root.
func (t *template) path(keys ...string) *yaml.Node {
	n := t.root
	for _, k := range keys {
		n = t.get(n, k)
	}
	return n
}

// eval evaluates a value to strings: a scalar, a list, or the intrinsic
// functions the template uses (Ref, GetAtt, Sub, Join, Split, If,
// Equals).
func (t *template) eval(n *yaml.Node) ([]string, error) {
	if n == nil {
		return nil, fmt.Errorf("a value is missing")
	}
	fn, arg := n.Tag, n
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 && (strings.HasPrefix(n.Content[0].Value, "Fn::") || n.Content[0].Value == "Ref") {
		fn, arg = "!"+strings.TrimPrefix(n.Content[0].Value, "Fn::"), n.Content[1]
	}
	switch fn {
	case "!Ref":
		if arg.Value == "AWS::NoValue" {
			return []string{}, nil
		}
		v, ok := t.params[arg.Value]
		if !ok {
			return nil, fmt.Errorf("!Ref %s: no such parameter with a value", arg.Value)
		}
		return v, nil
	case "!GetAtt":
		if v, ok := t.attrs[arg.Value]; ok {
			return []string{v}, nil
		}
		// A role's ARN stands for the role's logical ID.
		if role, ok := strings.CutSuffix(arg.Value, ".Arn"); ok && t.resourceType(role) == "AWS::IAM::Role" {
			return []string{role}, nil
		}
		return nil, fmt.Errorf("!GetAtt %s: unknown to this test", arg.Value)
	case "!Sub":
		return t.sub(arg)
	case "!Join":
		if arg.Kind != yaml.SequenceNode || len(arg.Content) != 2 {
			return nil, fmt.Errorf("line %d: !Join takes [delimiter, list]", n.Line)
		}
		parts, err := t.eval(arg.Content[1])
		if err != nil {
			return nil, err
		}
		return []string{strings.Join(parts, arg.Content[0].Value)}, nil
	case "!If":
		branch, err := t.ifBranch(n)
		if err != nil {
			return nil, err
		}
		return t.eval(branch)
	case "!Condition":
		holds, err := t.condition(arg.Value, n.Line)
		return []string{fmt.Sprint(holds)}, err
	case "!Not", "!And", "!Or":
		if arg.Kind != yaml.SequenceNode || len(arg.Content) == 0 || (fn == "!Not" && len(arg.Content) != 1) {
			return nil, fmt.Errorf("line %d: %s takes a list of conditions", n.Line, fn)
		}
		all, some := true, false
		for _, c := range arg.Content {
			v, err := t.single(c)
			if err != nil {
				return nil, err
			}
			all, some = all && v == "true", some || v == "true"
		}
		switch fn {
		case "!Not":
			return []string{fmt.Sprint(!all)}, nil
		case "!And":
			return []string{fmt.Sprint(all)}, nil
		}
		return []string{fmt.Sprint(some)}, nil
	case "!Equals":
		if arg.Kind != yaml.SequenceNode || len(arg.Content) != 2 {
			return nil, fmt.Errorf("line %d: !Equals takes [a, b]", n.Line)
		}
		a, err := t.single(arg.Content[0])
		if err != nil {
			return nil, err
		}
		b, err := t.single(arg.Content[1])
		if err != nil {
			return nil, err
		}
		return []string{fmt.Sprint(a == b)}, nil
	case "!Split":
		if arg.Kind != yaml.SequenceNode || len(arg.Content) != 2 {
			return nil, fmt.Errorf("line %d: !Split takes [delimiter, string]", n.Line)
		}
		s, err := t.single(arg.Content[1])
		if err != nil {
			return nil, err
		}
		return strings.Split(s, arg.Content[0].Value), nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
			return nil, fmt.Errorf("line %d: %s is unknown to this test", n.Line, n.Tag)
		}
		return []string{n.Value}, nil
	case yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			v, err := t.eval(c)
			if err != nil {
				return nil, err
			}
			out = append(out, v...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("line %d: cannot evaluate this value", n.Line)
}

// ifBranch returns the branch of an !If node its condition picks.
func (t *template) ifBranch(n *yaml.Node) (*yaml.Node, error) {
	if n.Kind != yaml.SequenceNode || len(n.Content) != 3 {
		return nil, fmt.Errorf("line %d: !If takes [condition, then, else]", n.Line)
	}
	holds, err := t.condition(n.Content[0].Value, n.Line)
	if err != nil {
		return nil, err
	}
	if holds {
		return n.Content[1], nil
	}
	return n.Content[2], nil
}

// condition evaluates the named condition.
func (t *template) condition(name string, line int) (bool, error) {
	cond := t.path("Conditions", name)
	if cond == nil {
		return false, fmt.Errorf("line %d: no condition %s", line, name)
	}
	holds, err := t.single(cond)
	return holds == "true", err
}

// isNoValue reports whether n is !Ref AWS::NoValue.
func isNoValue(n *yaml.Node) bool {
	return n != nil && n.Tag == "!Ref" && n.Value == "AWS::NoValue"
}

// resourceType is the Type of a resource, "" if there is none.
func (t *template) resourceType(logicalID string) string {
	if typ := t.get(t.path("Resources", logicalID), "Type"); typ != nil {
		return typ.Value
	}
	return ""
}

// present reports whether a resource exists in this deployment: it is in
// the template and its Condition, if any, holds.
func (t *template) present(logicalID string) (bool, error) {
	r := t.path("Resources", logicalID)
	if r == nil {
		return false, nil
	}
	cond := t.get(r, "Condition")
	if cond == nil {
		return true, nil
	}
	return t.condition(cond.Value, cond.Line)
}

func (t *template) single(n *yaml.Node) (string, error) {
	v, err := t.eval(n)
	if err != nil {
		return "", err
	}
	if len(v) != 1 {
		return "", fmt.Errorf("line %d: %d values where one string is needed", n.Line, len(v))
	}
	return v[0], nil
}

var subVar = regexp.MustCompile(`\$\{([^}!]+)\}`)

// sub is Fn::Sub: "string" or [string, {name: value}].
func (t *template) sub(arg *yaml.Node) ([]string, error) {
	text, vars := arg.Value, map[string]string{}
	if arg.Kind == yaml.SequenceNode {
		if len(arg.Content) != 2 || arg.Content[1].Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: !Sub takes a string or [string, {name: value}]", arg.Line)
		}
		text = arg.Content[0].Value
		m := arg.Content[1]
		for i := 0; i < len(m.Content); i += 2 {
			v, err := t.single(m.Content[i+1])
			if err != nil {
				return nil, err
			}
			vars[m.Content[i].Value] = v
		}
	}
	var err error
	out := subVar.ReplaceAllStringFunc(text, func(ref string) string {
		name := ref[2 : len(ref)-1]
		if v, ok := vars[name]; ok {
			return v
		}
		if v, ok := t.attrs[name]; ok {
			return v
		}
		if v, ok := t.params[name]; ok && len(v) == 1 {
			return v[0]
		}
		err = fmt.Errorf("line %d: ${%s} has no single value", arg.Line, name)
		return ref
	})
	return []string{out}, err
}

// rolePermissions lists every action on every resource the role's inline
// policies allow. Anything the comparison cannot judge (Deny, NotAction,
// NotResource, conditions, managed policies) is an error.
func (t *template) rolePermissions(role string) ([]permission, error) {
	return t.allows(role, false)
}

// awsManagedPolicies are the AWS managed policies the template attaches,
// as AWS documents them.
var awsManagedPolicies = map[string][]permission{
	"AmazonECSTaskExecutionRolePolicy": {
		{"ecr:GetAuthorizationToken", "*"}, {"ecr:BatchCheckLayerAvailability", "*"}, {"ecr:GetDownloadUrlForLayer", "*"},
		{"ecr:BatchGetImage", "*"}, {"logs:CreateLogStream", "*"}, {"logs:PutLogEvents", "*"},
	},
}

// allows is what role's statements allow; with conditional, statements
// with a Condition count as if they had none (a Condition only narrows an
// Allow), so what it returns is at least what the role may do.
func (t *template) allows(role string, conditional bool) ([]permission, error) {
	r := t.path("Resources", role)
	if r == nil || t.get(r, "Type").Value != "AWS::IAM::Role" {
		return nil, fmt.Errorf("no role %s", role)
	}
	props := t.get(r, "Properties")
	var out []permission
	if managed := t.get(props, "ManagedPolicyArns"); managed != nil {
		if !conditional {
			return nil, fmt.Errorf("role %s: managed policies cannot be checked here", role)
		}
		for _, m := range managed.Content {
			arn, err := t.single(m)
			if err != nil {
				return nil, fmt.Errorf("role %s: %w", role, err)
			}
			name := arn[strings.LastIndex(arn, "/")+1:]
			ps, ok := awsManagedPolicies[name]
			if !ok {
				return nil, fmt.Errorf("role %s: the managed policy %s is unknown to this test", role, arn)
			}
			out = append(out, ps...)
		}
	}
	policies := t.get(props, "Policies")
	if policies == nil {
		return nil, nil
	}
	for _, p := range policies.Content {
		statements := t.get(t.get(p, "PolicyDocument"), "Statement")
		if statements == nil {
			return nil, fmt.Errorf("role %s: a policy without statements", role)
		}
		for _, s := range statements.Content {
			if s.Tag == "!If" {
				branch, err := t.ifBranch(s)
				if err != nil {
					return nil, fmt.Errorf("role %s: %w", role, err)
				}
				if isNoValue(branch) {
					continue
				}
				s = branch
			}
			for i := 0; i < len(s.Content); i += 2 {
				switch k := s.Content[i].Value; k {
				case "Effect", "Action", "Resource", "Sid":
				case "Condition":
					if !conditional {
						return nil, fmt.Errorf("role %s, line %d: Condition is not checked by this test", role, s.Line)
					}
				default:
					return nil, fmt.Errorf("role %s, line %d: %s is not checked by this test", role, s.Line, k)
				}
			}
			if e := t.get(s, "Effect"); e == nil || e.Value != "Allow" {
				return nil, fmt.Errorf("role %s, line %d: only Allow statements are checked", role, s.Line)
			}
			actions, err := t.eval(t.get(s, "Action"))
			if err != nil {
				return nil, fmt.Errorf("role %s, line %d: %w", role, s.Line, err)
			}
			resources, err := t.eval(t.get(s, "Resource"))
			if err != nil {
				return nil, fmt.Errorf("role %s, line %d: %w", role, s.Line, err)
			}
			for _, a := range actions {
				for _, res := range resources {
					out = append(out, permission{Action: a, Resource: res})
				}
			}
		}
	}
	return sortPermissions(out), nil
}

// roleOf returns the logical ID of the role named by a resource property
// (!GetAtt Role.Arn).
func (t *template) roleOf(resource, property string) (string, error) {
	n := t.get(t.path("Resources", resource, "Properties"), property)
	if n == nil {
		return "", fmt.Errorf("%s has no %s", resource, property)
	}
	return t.single(n)
}

// permission is one IAM action allowed on one resource ARN (or "*").
type permission struct{ Action, Resource string }

func (p permission) String() string { return p.Action + " on " + p.Resource }

func sortPermissions(ps []permission) []permission {
	slices.SortFunc(ps, func(a, b permission) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(ps)
}
