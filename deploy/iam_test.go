package deploy

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/ssa"
)

// binary is a deployed program and the template resource whose property
// names the role it runs with.
type binary struct {
	main               string
	resource, property string
	// platform is what the runtime does with the role on the binary's
	// behalf, beyond the code's own calls.
	platform func(t *template) []permission
}

var binaries = []binary{
	{main: "./cmd/approvals-bot", resource: "BotTaskDefinition", property: "TaskRoleArn"},
	{main: "./cmd/notifier", resource: "NotifierFunction", property: "Role", platform: func(t *template) []permission {
		// Lambda writes the function's output to its log group with the
		// function's role.
		group := t.attrs["NotifierLogGroup.Arn"]
		return []permission{{"logs:CreateLogStream", group}, {"logs:PutLogEvents", group}}
	}},
	{main: "./cmd/approvals-events", resource: "EventsFunction", property: "Role", platform: func(t *template) []permission {
		// Lambda writes the function's output to its log group, and sends
		// an event whose retries ran out to the dead-letter queue, with the
		// function's role; to a queue encrypted with a customer managed
		// key, that takes the key too.
		group, queue := t.attrs["EventsLogGroup.Arn"], t.attrs["EventsDeadLetterQueue.Arn"]
		out := []permission{{"logs:CreateLogStream", group}, {"logs:PutLogEvents", group}, {"sqs:SendMessage", queue}}
		if key := t.kmsKey(); key != "" {
			out = append(out, permission{"kms:GenerateDataKey", key}, permission{"kms:Decrypt", key})
		}
		return out
	}},
	{main: "./cmd/approvals-archive", resource: "ArchiveFunction", property: "Role", platform: func(t *template) []permission {
		// Lambda reads the table's stream for the function's event source
		// mapping, and writes its output to the archive's log group, with
		// the function's role; the stream's records are encrypted with the
		// table's key.
		stream, group := t.attrs["ApprovalsTable.StreamArn"], t.attrs["AuditArchiveLogGroup.Arn"]
		out := []permission{{"logs:CreateLogStream", group}, {"logs:PutLogEvents", group}}
		for _, a := range []string{"DescribeStream", "GetRecords", "GetShardIterator", "ListStreams"} {
			out = append(out, permission{"dynamodb:" + a, stream})
		}
		if key := t.kmsKey(); key != "" {
			out = append(out, permission{"kms:Decrypt", key})
		}
		return out
	}},
}

// kmsKey is the customer managed key of the deployment, "" for none.
func (t *template) kmsKey() string {
	if k := t.params["KmsKeyArn"]; len(k) == 1 {
		return k[0]
	}
	return ""
}

// deployments are the parameter sets the roles are checked for: the
// defaults, and everything optional turned on.
var deployments = map[string]map[string][]string{
	"defaults": nil,
	"a customer managed key, listed state machines and every workflow": everything(),
}

// everything is a deployment with a customer managed key, listed state
// machines and every shipped workflow.
func everything() map[string][]string {
	return map[string][]string{
		"KmsKeyArn":                            {"arn:aws:kms:us-east-1:123456789012:key/0b7e8e1c-4a0d-4f5e-9b7a-3c2d1e0f9a8b"},
		"StateMachineArns":                     {"arn:aws:states:us-east-1:123456789012:stateMachine:nightly-certs"},
		"DeployPublishWithApproval":            {"true"},
		"DeployPublishWithApprovalJSONata":     {"true"},
		"DeployApproveOrEscalate":              {"true"},
		"DeployBatchWithApprovedRetries":       {"true"},
		"DeployBatchWithApprovedRetriesLambda": {"true"},
		"BatchBucket":                          {"acme-batches"},
		"WorkerCluster":                        {"batch"},
		"WorkerTaskDefinitionArn":              {"arn:aws:ecs:us-east-1:123456789012:task-definition/invoice-worker:7"},
		"WorkerContainer":                      {"worker"},
		"WorkerSubnets":                        {"subnet-0a1b,subnet-0c2d"},
		"WorkerSecurityGroups":                 {"sg-0e3f"},
		"WorkerRoleArns":                       {"arn:aws:iam::123456789012:role/invoice-worker-task", "arn:aws:iam::123456789012:role/invoice-worker-execution"},
		"DefinitionsPrefix":                    {"definitions/1a2b3c4/"},
		"Channel":                              {"C0PUBLISH"},
		"Approvers":                            {"U0ALICE,S0EDITORS"},
		"EscalationApprovers":                  {"S0LEADS"},
		"DraftAgentFunctionArn":                {"arn:aws:lambda:us-east-1:123456789012:function:draft-agent"},
		"PublishFunctionArn":                   {"arn:aws:lambda:us-east-1:123456789012:function:publish"},
		"FileRejectionFunctionArn":             {"arn:aws:lambda:us-east-1:123456789012:function:file-rejection"},
		"ProcessItemFunctionArn":               {"arn:aws:lambda:us-east-1:123456789012:function:process-item:live"},
		"VpcId":                                {"vpc-0123"},
	}
}

// Each role's statements are exactly what its binary's code can call:
// nothing missing (an AccessDenied in production), nothing extra.
func TestRolesAllowExactlyWhatTheCodeCalls(t *testing.T) {
	for name, params := range deployments {
		tmpl, err := readTemplate(params)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) { checkRoles(t, tmpl) })
	}
}

func checkRoles(t *testing.T, tmpl *template) {
	for _, b := range binaries {
		t.Run(strings.TrimPrefix(b.main, "./cmd/"), func(t *testing.T) {
			u := derived(t)[b.main]
			missing, extra, err := compareRole(tmpl, b, u)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range missing {
				t.Errorf("%s can call for %s, which the template does not allow", b.main, p)
			}
			for _, p := range extra {
				t.Errorf("the template allows %s, which %s never calls", p, b.main)
			}
			if t.Failed() {
				t.Logf("%s calls %v (Query indexes %q, transaction items %v)", b.main, u.Calls, u.QueryIndexes, u.TransactWrites)
			}
		})
	}
}

// compareRole compares the permissions the binary needs with what its
// role in tmpl allows.
func compareRole(tmpl *template, b binary, u usage) (missing, extra []permission, err error) {
	role, err := tmpl.roleOf(b.resource, b.property)
	if err != nil {
		return nil, nil, err
	}
	allowed, err := tmpl.rolePermissions(role)
	if err != nil {
		return nil, nil, err
	}
	need, err := needed(tmpl, u)
	if err != nil {
		return nil, nil, err
	}
	if b.platform != nil {
		need = sortPermissions(append(need, b.platform(tmpl)...))
	}
	for _, p := range need {
		if !contains(allowed, p) {
			missing = append(missing, p)
		}
	}
	for _, p := range allowed {
		if !contains(need, p) {
			extra = append(extra, p)
		}
	}
	return missing, extra, nil
}

func contains(ps []permission, p permission) bool { return slices.Contains(ps, p) }

// needed maps the binary's calls to IAM actions on the deployment's
// resources. An operation without a rule here is an error to fix here.
func needed(tmpl *template, u usage) ([]permission, error) {
	if len(u.Problems) > 0 {
		return nil, fmt.Errorf("the code cannot be analysed: %s", strings.Join(u.Problems, "; "))
	}
	table, key := tmpl.attrs["ApprovalsTable.Arn"], tmpl.kmsKey()
	var out []permission
	for _, c := range u.Calls {
		action := iamService[c.Service] + ":" + c.Op
		if key != "" && (c.Service == "dynamodb" || c.Service == "secretsmanager") {
			// The table's key and the secret's are decrypted with the
			// caller's permissions.
			out = append(out, permission{"kms:Decrypt", key})
		}
		switch c.String() {
		case "secretsmanager.GetSecretValue":
			secret := tmpl.params["SlackSecretArn"]
			if len(secret) != 1 {
				return nil, fmt.Errorf("the template has no parameter SlackSecretArn with one value")
			}
			out = append(out, permission{action, secret[0]})
		case "dynamodb.GetItem", "dynamodb.PutItem", "dynamodb.UpdateItem", "dynamodb.DeleteItem", "dynamodb.BatchGetItem", "dynamodb.BatchWriteItem":
			out = append(out, permission{action, table})
		case "dynamodb.Query":
			for _, index := range u.QueryIndexes {
				if index == "" {
					out = append(out, permission{action, table})
				} else {
					out = append(out, permission{action, table + "/index/" + index})
				}
			}
		case "dynamodb.TransactWriteItems":
			// IAM has no TransactWriteItems action: each item is
			// authorised as the single-item write it is.
			for _, kind := range u.TransactWrites {
				item := map[string]string{"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem", "ConditionCheck": "ConditionCheckItem"}[kind]
				if item == "" {
					return nil, fmt.Errorf("TransactWriteItem member %s has no rule", kind)
				}
				out = append(out, permission{"dynamodb:" + item, table})
			}
		case "sfn.SendTaskSuccess", "sfn.SendTaskFailure", "sfn.SendTaskHeartbeat":
			// A task token names no resource.
			out = append(out, permission{action, "*"})
		case "sfn.GetExecutionHistory", "sfn.DescribeExecution", "sfn.StopExecution":
			executions, err := tmpl.executions()
			if err != nil {
				return nil, err
			}
			for _, e := range executions {
				out = append(out, permission{action, e})
			}
		default:
			return nil, fmt.Errorf("no IAM rule for %s: add one to needed", c)
		}
	}
	return sortPermissions(out), nil
}

// iamService is each SDK package's IAM service prefix.
var iamService = map[string]string{"dynamodb": "dynamodb", "sfn": "states", "secretsmanager": "secretsmanager"}

// executions are the ARNs of the executions of the state machines the
// deployment approves for (parameter StateMachineArns, and the state
// machines the stack deploys; "*" for all in its account and region).
func (t *template) executions() ([]string, error) {
	machines, err := t.approvalMachines()
	if err != nil {
		return nil, err
	}
	if len(machines) == 1 && machines[0] == "*" {
		return []string{fmt.Sprintf("arn:%s:states:%s:%s:execution:*:*", partition, region, account)}, nil
	}
	var out []string
	for _, m := range machines {
		prefix, name, ok := strings.Cut(m, ":stateMachine:")
		if !ok {
			return nil, fmt.Errorf("%q is not a state machine ARN", m)
		}
		out = append(out, prefix+":execution:"+name+":*")
	}
	return out, nil
}

// approvalMachines are the ARNs of the state machines whose approvals the
// deployment handles: StateMachineArns and the state machines the stack
// deploys, or just "*" for all.
func (t *template) approvalMachines() ([]string, error) {
	listed, ok := t.params["StateMachineArns"]
	if !ok {
		return nil, fmt.Errorf("the template has no parameter StateMachineArns")
	}
	if len(listed) == 1 && listed[0] == "*" {
		return listed, nil
	}
	out := slices.Clone(listed)
	deployed, err := t.stateMachines()
	if err != nil {
		return nil, err
	}
	for _, sm := range deployed {
		out = append(out, sm.arn)
	}
	return out, nil
}

// deployedMachine is a state machine the stack deploys.
type deployedMachine struct {
	resource, name, arn string
}

// stateMachines are the state machines present in the deployment, by
// logical ID.
func (t *template) stateMachines() ([]deployedMachine, error) {
	resources := t.path("Resources")
	var out []deployedMachine
	for i := 0; i+1 < len(resources.Content); i += 2 {
		id := resources.Content[i].Value
		if t.resourceType(id) != "AWS::StepFunctions::StateMachine" {
			continue
		}
		if ok, err := t.present(id); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		name, err := t.single(t.get(t.path("Resources", id, "Properties"), "StateMachineName"))
		if err != nil {
			return nil, fmt.Errorf("%s: StateMachineName: %w", id, err)
		}
		out = append(out, deployedMachine{id, name, fmt.Sprintf("arn:%s:states:%s:%s:stateMachine:%s", partition, region, account, name)})
	}
	return out, nil
}

var derivedOnce = sync.OnceValues(func() (map[string]usage, error) {
	return deriveAll()
})

// derived is each binary's usage, analysed once per test binary.
func derived(t *testing.T) map[string]usage {
	t.Helper()
	u, err := derivedOnce()
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func deriveAll() (map[string]usage, error) {
	var mains []string
	for _, b := range binaries {
		mains = append(mains, b.main)
	}
	return deriveUsage(mains...)
}

// deriveUsage analyses each main package.
func deriveUsage(mains ...string) (map[string]usage, error) {
	prog, byPath, deps, err := loadProgram(mains...)
	if err != nil {
		return nil, err
	}
	out := map[string]usage{}
	for _, m := range mains {
		var pkgs []*ssa.Package
		for _, d := range deps[m] {
			pkgs = append(pkgs, byPath[d])
		}
		out[m] = analyze(prog, pkgs)
	}
	return out, nil
}

// The state machines whose histories the bot may read are a parameter:
// all in the stack's account and region by default, or the listed ones.
func TestExecutionHistoryIsScopedToTheListedStateMachines(t *testing.T) {
	const machines = "arn:aws:states:us-east-1:123456789012:stateMachine:"
	for _, tc := range []struct {
		arns []string
		want []string
	}{
		{nil, []string{"arn:aws:states:us-east-1:123456789012:execution:*:*"}},
		{[]string{machines + "publish-with-approval", machines + "nightly-certs"}, []string{
			"arn:aws:states:us-east-1:123456789012:execution:publish-with-approval:*",
			"arn:aws:states:us-east-1:123456789012:execution:nightly-certs:*",
		}},
	} {
		var params map[string][]string
		if tc.arns != nil {
			params = map[string][]string{"StateMachineArns": tc.arns}
		}
		tmpl, err := readTemplate(params)
		if err != nil {
			t.Fatal(err)
		}
		allowed, err := tmpl.rolePermissions("BotTaskRole")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range allowed {
			if p.Action == "states:GetExecutionHistory" {
				got = append(got, p.Resource)
			}
		}
		if diff := cmp.Diff(sortStrings(tc.want), sortStrings(got)); diff != "" {
			t.Errorf("StateMachineArns %q: GetExecutionHistory resources (-want +got):\n%s", tc.arns, diff)
		}
	}
}

// The comparison reports a statement the code needs but the template
// lacks, and one the template has but the code never uses.
func TestRoleCheckFindsMissingAndExtraStatements(t *testing.T) {
	text, err := os.ReadFile("cloudformation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bot, notifier := binaries[0], binaries[1]
	for _, tc := range []struct {
		name    string
		edit    func(string) string
		b       binary
		missing []permission
		extra   []permission
	}{
		{
			name: "a needed action removed",
			edit: func(s string) string { return replaceOnce(t, s, "                  - states:SendTaskFailure\n", "") },
			b:    bot, missing: []permission{{"states:SendTaskFailure", "*"}},
		},
		{
			name: "an unused action added",
			edit: func(s string) string {
				return replaceOnce(t, s, "                  - states:SendTaskFailure\n", "                  - states:SendTaskFailure\n                  - states:StopExecution\n")
			},
			b: bot, extra: []permission{{"states:StopExecution", "*"}},
		},
		{
			name: "the log group statement removed from the notifier",
			edit: func(s string) string {
				return replaceOnce(t, s, "                  - logs:CreateLogStream\n                  - logs:PutLogEvents\n                Resource: !GetAtt NotifierLogGroup.Arn\n",
					"                  - logs:PutLogEvents\n                Resource: !GetAtt NotifierLogGroup.Arn\n")
			},
			b: notifier, missing: []permission{{"logs:CreateLogStream", "arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/approvals-notifier:*"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, err := parseTemplate([]byte(tc.edit(string(text))), nil)
			if err != nil {
				t.Fatal(err)
			}
			missing, extra, err := compareRole(tmpl, tc.b, derived(t)[tc.b.main])
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.missing, missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.extra, extra); diff != "" {
				t.Errorf("extra (-want +got):\n%s", diff)
			}
		})
	}
}

func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("the template holds %q %d times, want once", old, strings.Count(s, old))
	}
	return strings.Replace(s, old, new, 1)
}

func sortStrings(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// The derivation follows calls through the module's interfaces, callbacks
// from code it cannot see (net/http, sync) and goroutines; it reads Query
// indexes and transaction items; and it leaves out operator-only code.
func TestDerivationSeesEveryKindOfCall(t *testing.T) {
	const probe = "./deploy/testdata/probe"
	u, err := deriveUsage(probe)
	if err != nil {
		t.Fatal(err)
	}
	want := usage{
		Calls: []call{
			{"dynamodb", "Query"}, {"dynamodb", "TransactWriteItems"}, {"dynamodb", "UpdateItem"},
			{"sfn", "SendTaskHeartbeat"},
		},
		Clients:        []string{"dynamodb", "sfn"},
		QueryIndexes:   []string{"execution-index"},
		TransactWrites: []string{"Delete"},
	}
	if diff := cmp.Diff(want, u[probe]); diff != "" {
		t.Errorf("derived usage (-want +got):\n%s", diff)
	}
}
