package deploy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/sfnlocal/host"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// deployedDefinition is the definition CloudFormation deploys for the
// state machine resource: the file its DefinitionS3Location names (one of
// the shipped definitions, under DefinitionsPrefix) with its
// DefinitionSubstitutions applied. A placeholder without a substitution is
// an error here, where CloudFormation would leave it in place.
func (t *template) deployedDefinition(resource string) (file string, def []byte, err error) {
	props := t.path("Resources", resource, "Properties")
	key, err := t.single(t.get(t.get(props, "DefinitionS3Location"), "Key"))
	if err != nil {
		return "", nil, fmt.Errorf("%s: DefinitionS3Location.Key: %w", resource, err)
	}
	file, ok := strings.CutPrefix(key, t.params["DefinitionsPrefix"][0])
	if !ok || !slices.Contains(definitions.Names(), file) {
		return "", nil, fmt.Errorf("%s: key %q is not a shipped definition under DefinitionsPrefix", resource, key)
	}
	subs := map[string]string{}
	m := t.get(props, "DefinitionSubstitutions")
	for i := 0; m != nil && i+1 < len(m.Content); i += 2 {
		if subs[m.Content[i].Value], err = t.single(m.Content[i+1]); err != nil {
			return "", nil, fmt.Errorf("%s: DefinitionSubstitutions.%s: %w", resource, m.Content[i].Value, err)
		}
	}
	raw, err := definitions.Load(file)
	if err != nil {
		return "", nil, err
	}
	def, err = host.Substitute(raw, subs)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", resource, err)
	}
	return file, def, nil
}

// workflowNeeds derives what a state machine's role must allow from its
// definition: lambda:InvokeFunction on each function a Task invokes; for
// a distributed Map, starting its child executions (of the state machine
// itself) and describing and stopping them; for a Map's ItemReader and
// ResultWriter and an aws-sdk:s3:getObject Task, the S3 actions AWS's
// developer guide lists on the bucket (and prefix) they name; for
// ecs:runTask.sync, starting the task definition, describing and stopping
// the cluster's tasks, the EventBridge rule Step Functions manages, and
// passing the task's roles (passRoles: the definition cannot name them);
// and, with logging on, the CloudWatch Logs delivery actions, which take
// no resource. A Task resource, reader or writer this has no rule for, or
// whose bucket, cluster or task definition is not written out, is an
// error.
func workflowNeeds(def []byte, machine deployedMachine, logging bool, passRoles ...string) ([]permission, error) {
	arnParts := strings.Split(machine.arn, ":") // arn:aws:states:REGION:ACCOUNT:stateMachine:NAME
	if len(arnParts) < 5 {
		return nil, fmt.Errorf("state machine ARN %q", machine.arn)
	}
	region, account := arnParts[3], arnParts[4]
	literal := func(state, field string, v any) (string, error) {
		s, ok := v.(string)
		if !ok || s == "" || strings.HasPrefix(s, "{%") || strings.Contains(s, "${") {
			return "", fmt.Errorf("state %s: %s %v is not written out, so its permission cannot be derived", state, field, v)
		}
		return s, nil
	}
	var doc struct{ States map[string]json.RawMessage }
	if err := json.Unmarshal(def, &doc); err != nil {
		return nil, err
	}
	var out []permission
	var walk func(states map[string]json.RawMessage) error
	walk = func(states map[string]json.RawMessage) error {
		for name, raw := range states {
			type args struct{ FunctionName, Bucket, Prefix, Cluster, TaskDefinition any }
			type io struct {
				Resource              string
				Parameters, Arguments args
			}
			var s struct {
				Type, Resource string
				Parameters     args
				Arguments      args
				Branches       []struct{ States map[string]json.RawMessage }
				Iterator       *struct{ States map[string]json.RawMessage }
				ItemProcessor  *struct {
					ProcessorConfig struct{ Mode string }
					States          map[string]json.RawMessage
				}
				ItemReader, ResultWriter *io
			}
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Errorf("state %s: %w", name, err)
			}
			switch {
			case s.Type == "Task" && (s.Resource == "arn:aws:states:::lambda:invoke" || s.Resource == "arn:aws:states:::lambda:invoke.waitForTaskToken"):
				fn, _ := s.Parameters.FunctionName.(string)
				if fn == "" {
					fn, _ = s.Arguments.FunctionName.(string)
				}
				if !strings.HasPrefix(fn, "arn:") {
					return fmt.Errorf("state %s invokes %q, not a function ARN", name, fn)
				}
				out = append(out, permission{"lambda:InvokeFunction", fn})
			case s.Type == "Task" && s.Resource == "arn:aws:states:::aws-sdk:s3:getObject":
				bucket, err := literal(name, "Bucket", first(s.Arguments.Bucket, s.Parameters.Bucket))
				if err != nil {
					return err
				}
				out = append(out, permission{"s3:GetObject", "arn:aws:s3:::" + bucket + "/*"})
			case s.Type == "Task" && s.Resource == "arn:aws:states:::ecs:runTask.sync":
				td, err := literal(name, "TaskDefinition", first(s.Arguments.TaskDefinition, s.Parameters.TaskDefinition))
				if err != nil {
					return err
				}
				cluster, err := literal(name, "Cluster", first(s.Arguments.Cluster, s.Parameters.Cluster))
				if err != nil {
					return err
				}
				tasks := fmt.Sprintf("arn:aws:ecs:%s:%s:task/%s/*", region, account, cluster)
				rule := fmt.Sprintf("arn:aws:events:%s:%s:rule/StepFunctionsGetEventsForECSTaskRule", region, account)
				out = append(out, permission{"ecs:RunTask", td}, permission{"ecs:StopTask", tasks}, permission{"ecs:DescribeTasks", tasks},
					permission{"events:PutTargets", rule}, permission{"events:PutRule", rule}, permission{"events:DescribeRule", rule})
				if len(passRoles) == 0 {
					return fmt.Errorf("state %s starts ECS tasks but no task role is given to pass", name)
				}
				for _, r := range passRoles {
					out = append(out, permission{"iam:PassRole", r})
				}
			case s.Type == "Task":
				return fmt.Errorf("state %s: no IAM rule for the resource %s: add one to workflowNeeds", name, s.Resource)
			}
			if r := s.ItemReader; r != nil {
				bucket, err := literal(name, "ItemReader's Bucket", first(r.Arguments.Bucket, r.Parameters.Bucket))
				if err != nil {
					return err
				}
				switch r.Resource {
				case "arn:aws:states:::s3:getObject":
					out = append(out, permission{"s3:GetObject", "arn:aws:s3:::" + bucket + "/*"})
				case "arn:aws:states:::s3:listObjectsV2":
					out = append(out, permission{"s3:ListBucket", "arn:aws:s3:::" + bucket})
				default:
					return fmt.Errorf("state %s: no IAM rule for the ItemReader %s: add one to workflowNeeds", name, r.Resource)
				}
			}
			if w := s.ResultWriter; w != nil && w.Resource != "" {
				bucket, err := literal(name, "ResultWriter's Bucket", first(w.Arguments.Bucket, w.Parameters.Bucket))
				if err != nil {
					return err
				}
				prefix, err := literal(name, "ResultWriter's Prefix", first(w.Arguments.Prefix, w.Parameters.Prefix))
				if err != nil {
					return err
				}
				objects := "arn:aws:s3:::" + bucket + "/" + strings.TrimSuffix(prefix, "/") + "/*"
				for _, a := range []string{"s3:PutObject", "s3:GetObject", "s3:ListMultipartUploadParts", "s3:AbortMultipartUpload"} {
					out = append(out, permission{a, objects})
				}
			}
			for _, b := range s.Branches {
				if err := walk(b.States); err != nil {
					return err
				}
			}
			if s.Iterator != nil {
				if err := walk(s.Iterator.States); err != nil {
					return err
				}
			}
			if s.ItemProcessor != nil {
				if s.ItemProcessor.ProcessorConfig.Mode == "DISTRIBUTED" {
					executions := strings.Replace(machine.arn, ":stateMachine:", ":execution:", 1) + "/*"
					out = append(out, permission{"states:StartExecution", machine.arn},
						permission{"states:DescribeExecution", executions}, permission{"states:StopExecution", executions})
				}
				if err := walk(s.ItemProcessor.States); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(doc.States); err != nil {
		return nil, err
	}
	if logging {
		for _, a := range []string{"CreateLogDelivery", "GetLogDelivery", "UpdateLogDelivery", "DeleteLogDelivery",
			"ListLogDeliveries", "PutResourcePolicy", "DescribeResourcePolicies", "DescribeLogGroups"} {
			out = append(out, permission{"logs:" + a, "*"})
		}
	}
	return sortPermissions(out), nil
}

// Every shipped workflow can be deployed by the stack, each from its file
// unedited, and each role allows exactly what its definition calls.
func TestWorkflowRolesAllowExactlyWhatTheirDefinitionsCall(t *testing.T) {
	t.Parallel()
	tmpl, err := readTemplate(everything())
	if err != nil {
		t.Fatal(err)
	}
	machines, err := tmpl.stateMachines()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, m := range machines {
		t.Run(m.name, func(t *testing.T) {
			file, def, err := tmpl.deployedDefinition(m.resource)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, file)
			props := tmpl.path("Resources", m.resource, "Properties")
			need, err := workflowNeeds(def, m, tmpl.get(props, "LoggingConfiguration") != nil, tmpl.params["WorkerRoleArns"]...)
			if err != nil {
				t.Fatal(err)
			}
			role, err := tmpl.roleOf(m.resource, "RoleArn")
			if err != nil {
				t.Fatal(err)
			}
			allowed, err := tmpl.rolePermissions(role)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range need {
				if !contains(allowed, p) {
					t.Errorf("%s calls for %s, which %s does not allow", file, p, role)
				}
			}
			for _, p := range allowed {
				if !contains(need, p) {
					t.Errorf("%s allows %s, which %s never calls", role, p, file)
				}
			}
		})
	}
	slices.Sort(files)
	if !slices.Equal(files, definitions.Names()) {
		t.Errorf("the stack deploys %q, want every shipped definition %q", files, definitions.Names())
	}
}

// The comparison fails on a role that lacks a function its definition
// invokes, and on one that allows a function nothing invokes.
func TestWorkflowRoleCheckFindsMissingAndExtraFunctions(t *testing.T) {
	t.Parallel()
	params := everything()
	tmpl, err := readTemplate(params)
	if err != nil {
		t.Fatal(err)
	}
	machine := deployedMachine{"PublishWithApprovalStateMachine", "approvals-publish-with-approval", "arn:aws:states:us-east-1:123456789012:stateMachine:approvals-publish-with-approval"}
	_, def, err := tmpl.deployedDefinition(machine.resource)
	if err != nil {
		t.Fatal(err)
	}
	need, err := workflowNeeds(def, machine, true)
	if err != nil {
		t.Fatal(err)
	}
	allowed, err := tmpl.rolePermissions("PublishWithApprovalRole")
	if err != nil {
		t.Fatal(err)
	}
	draft := permission{"lambda:InvokeFunction", params["DraftAgentFunctionArn"][0]}
	rejection := permission{"lambda:InvokeFunction", params["FileRejectionFunctionArn"][0]}
	if !contains(need, draft) || !contains(allowed, draft) || contains(need, rejection) || contains(allowed, rejection) {
		t.Fatalf("need %v, allowed %v: want the draft agent in both, the rejection function in neither", need, allowed)
	}
	if _, err := workflowNeeds([]byte(`{"States":{"S":{"Type":"Task","Resource":"arn:aws:states:::sqs:sendMessage"}}}`), machine, false); err == nil {
		t.Error("a Task resource without a rule was accepted")
	}
}

// Each workflow is a Standard state machine (Express ones cannot wait for
// a task token) that logs to a log group of its own, without execution
// data unless WorkflowLogExecutionData says so; its role trusts Step
// Functions only.
func TestWorkflowsAreStandardAndLogged(t *testing.T) {
	t.Parallel()
	for _, withData := range []string{"false", "true"} {
		params := everything()
		params["WorkflowLogExecutionData"] = []string{withData}
		tmpl, err := readTemplate(params)
		if err != nil {
			t.Fatal(err)
		}
		machines, err := tmpl.stateMachines()
		if err != nil {
			t.Fatal(err)
		}
		groups := map[string]bool{}
		for _, m := range machines {
			props := tmpl.path("Resources", m.resource, "Properties")
			typ, _ := tmpl.single(tmpl.get(props, "StateMachineType"))
			logging := tmpl.get(props, "LoggingConfiguration")
			level, _ := tmpl.single(tmpl.get(logging, "Level"))
			data, _ := tmpl.single(tmpl.get(logging, "IncludeExecutionData"))
			group := tmpl.get(tmpl.get(tmpl.get(logging, "Destinations").Content[0], "CloudWatchLogsLogGroup"), "LogGroupArn")
			if typ != "STANDARD" || level != "ERROR" || data != withData || group == nil || group.Tag != "!GetAtt" {
				t.Errorf("%s: type %s, log level %s, execution data %s, group %v; want STANDARD, ERROR, %s, a log group of the stack",
					m.resource, typ, level, data, group, withData)
				continue
			}
			if groups[group.Value] {
				t.Errorf("%s shares the log group %s", m.resource, group.Value)
			}
			groups[group.Value] = true
			trust := tmpl.path("Resources", strings.TrimSuffix(m.resource, "StateMachine")+"Role", "Properties", "AssumeRolePolicyDocument", "Statement")
			if service, _ := tmpl.single(tmpl.get(tmpl.get(trust.Content[0], "Principal"), "Service")); len(trust.Content) != 1 || service != "states.amazonaws.com" {
				t.Errorf("%s's role is assumed by %s, want states.amazonaws.com only", m.resource, service)
			}
		}
		if len(machines) != len(definitions.Names()) {
			t.Errorf("%d state machines, want %d", len(machines), len(definitions.Names()))
		}
	}
	// The default deploys none.
	tmpl, err := readTemplate(nil)
	if err != nil {
		t.Fatal(err)
	}
	if machines, err := tmpl.stateMachines(); err != nil || len(machines) != 0 {
		t.Errorf("the default deploys %v (%v), want no workflow", machines, err)
	}
}

// brokenRules lists the template's Rules whose assertions fail for the
// deployment: CloudFormation refuses such a stack before creating
// anything, with the AssertDescription.
func (t *template) brokenRules() ([]string, error) {
	rules := t.path("Rules")
	var broken []string
	for i := 0; rules != nil && i+1 < len(rules.Content); i += 2 {
		name, rule := rules.Content[i].Value, rules.Content[i+1]
		if cond := t.get(rule, "RuleCondition"); cond != nil {
			holds, err := t.single(cond)
			if err != nil {
				return nil, fmt.Errorf("rule %s: %w", name, err)
			}
			if holds != "true" {
				continue
			}
		}
		for _, a := range t.get(rule, "Assertions").Content {
			holds, err := t.single(t.get(a, "Assert"))
			if err != nil {
				return nil, fmt.Errorf("rule %s: %w", name, err)
			}
			if holds != "true" {
				broken = append(broken, name)
			}
		}
	}
	return broken, nil
}

// The Rules refuse a workflow without what it needs, and a bot without a
// network for its security group, and let the complete deployments pass.
func TestRulesRefuseIncompleteDeployments(t *testing.T) {
	t.Parallel()
	without := func(keys ...string) map[string][]string {
		p := everything()
		for _, k := range keys {
			p[k] = []string{""}
		}
		return p
	}
	tests := []struct {
		name   string
		params map[string][]string
		want   []string
	}{
		{"everything", everything(), nil},
		{"the defaults and a VPC", map[string][]string{"VpcId": {"vpc-0123"}}, nil},
		{"your own security group", map[string][]string{"SecurityGroup": {"sg-0123"}}, nil},
		{"neither a VPC nor a security group", nil, []string{"SecurityGroupOrVpc"}},
		{"no channel", without("Channel"), []string{"WorkflowNeeds"}},
		{"no definitions prefix", without("DefinitionsPrefix"), []string{"WorkflowNeeds"}},
		{"no publisher", without("PublishFunctionArn"), []string{"PublishWorkflowNeeds"}},
		{"no escalation group", without("EscalationApprovers"), []string{"ApproveOrEscalateNeeds"}},
		{"no item processor", without("ProcessItemFunctionArn"), []string{"BatchLambdaWorkflowNeeds"}},
		{"no batch bucket", without("BatchBucket"), []string{"BatchWorkflowNeeds", "BatchLambdaWorkflowNeeds"}},
		{"no worker task definition", without("WorkerTaskDefinitionArn"), []string{"BatchWorkflowNeeds"}},
		{"no worker roles to pass", without("WorkerRoleArns"), []string{"BatchWorkflowNeeds"}},
	}
	for _, tt := range tests {
		tmpl, err := readTemplate(tt.params)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tmpl.brokenRules()
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: broken rules %q (%v), want %q", tt.name, got, err, tt.want)
		}
	}
}

// first is the first value that is set.
func first(vs ...any) any {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}
