package deploy

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/workflow/dynamo"
)

// archiveWrites are the only actions any role may hold on the audit
// archive's log group: they append.
var archiveWrites = []string{"logs:CreateLogStream", "logs:PutLogEvents"}

// logDelivery are the CloudWatch Logs actions Step Functions needs, on
// "*", to deliver a state machine's logs. They manage deliveries and
// resource policies, which may only grant CreateLogStream and
// PutLogEvents; none deletes or changes a log event, stream or retention.
var logDelivery = []string{
	"logs:CreateLogDelivery", "logs:GetLogDelivery", "logs:UpdateLogDelivery", "logs:DeleteLogDelivery",
	"logs:ListLogDeliveries", "logs:PutResourcePolicy", "logs:DescribeResourcePolicies", "logs:DescribeLogGroups",
}

// archiveSwitches are actions that would stop the archive or change what
// it writes: the table's stream, the function, its event source mapping,
// the roles and the stack itself. No role of the stack may hold one.
var archiveSwitches = []string{
	"dynamodb:UpdateTable", "dynamodb:DeleteTable",
	"lambda:UpdateFunctionCode", "lambda:UpdateFunctionConfiguration", "lambda:DeleteFunction", "lambda:PutFunctionConcurrency",
	"lambda:UpdateEventSourceMapping", "lambda:DeleteEventSourceMapping", "lambda:CreateEventSourceMapping",
}

// Every role of the stack, in each deployment, tried against the audit
// archive: none may delete or change what it holds or switch it off. On
// the archive's log group a role may only append; no role holds any other
// CloudWatch Logs action on any resource but the delivery actions Step
// Functions needs (which cannot touch events); no role holds an action
// that changes the stream, the function or its mapping, nor iam: or
// cloudformation: actions, nor a wildcard action.
func TestNoRoleCanChangeTheAuditArchive(t *testing.T) {
	for name, params := range deployments {
		tmpl, err := readTemplate(params)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			group := tmpl.attrs["AuditArchiveLogGroup.Arn"]
			roles := 0
			for _, role := range tmpl.resourcesOf("AWS::IAM::Role") {
				if ok, err := tmpl.present(role); err != nil || !ok {
					if err != nil {
						t.Fatal(err)
					}
					continue
				}
				roles++
				allowed, err := tmpl.allows(role, true)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range allowed {
					if problem := archiveRisk(p, group); problem != "" {
						t.Errorf("%s may %s on %s: %s", role, p.Action, p.Resource, problem)
					}
				}
			}
			if roles < 5 {
				t.Errorf("only %d roles checked", roles)
			}
		})
	}
}

// archiveRisk says what p could do to the archive, "" for nothing.
func archiveRisk(p permission, group string) string {
	service, _, _ := strings.Cut(p.Action, ":")
	switch {
	case strings.Contains(p.Action, "*"):
		return "a wildcard action"
	case p.Action == "iam:PassRole" && p.Resource != "*":
		// Only the batch workflow's, to its workers' roles, which the
		// deployer lists (WorkerRoleArns): keeping those off the archive
		// is theirs to do (deploy/README.md says so).
		return ""
	case service == "iam" || service == "cloudformation":
		return "it could give itself more"
	case slices.Contains(archiveSwitches, p.Action):
		return "it could stop the archive or change what it writes"
	case service != "logs":
		return ""
	case slices.Contains(archiveWrites, p.Action):
		return ""
	case slices.Contains(logDelivery, p.Action) && p.Resource == "*":
		return ""
	case p.Resource == group || p.Resource == "*" || strings.HasPrefix(group, strings.TrimSuffix(p.Resource, "*")):
		return "an action on the archive's log group that does not only append"
	}
	return "a CloudWatch Logs action this test does not know to be harmless"
}

// The archive's plumbing: the table streams both images, the mapping
// reads audit records (and only those) from the stream's start and retries
// a failing batch rather than skip it, the function's output goes to the
// archive's group, and that group outlives the stack and keeps each record
// at least as long as the table does.
func TestTheArchiveGetsEveryAuditRecord(t *testing.T) {
	tmpl, err := readTemplate(nil)
	if err != nil {
		t.Fatal(err)
	}
	prop := func(id string, path ...string) string {
		n := tmpl.path(append([]string{"Resources", id}, path...)...)
		if n == nil {
			return ""
		}
		if n.Tag == "!Ref" && tmpl.resourceType(n.Value) != "" {
			return n.Value // a resource: its logical ID
		}
		v, err := tmpl.single(n)
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return v
	}
	for _, c := range []struct{ got, want, what string }{
		{prop("ApprovalsTable", "Properties", "StreamSpecification", "StreamViewType"), "NEW_AND_OLD_IMAGES", "the table's stream view"},
		{prop("ArchiveEventSourceMapping", "Properties", "EventSourceArn"), tmpl.attrs["ApprovalsTable.StreamArn"], "the mapping's source"},
		{prop("ArchiveEventSourceMapping", "Properties", "FunctionName"), "ArchiveFunction", "the mapping's function"},
		{prop("ArchiveEventSourceMapping", "Properties", "StartingPosition"), "TRIM_HORIZON", "where the mapping starts"},
		{prop("ArchiveEventSourceMapping", "Properties", "MaximumRetryAttempts"), "-1", "the mapping's retries"},
		{prop("ArchiveEventSourceMapping", "Properties", "MaximumRecordAgeInSeconds"), "-1", "the mapping's record age limit"},
		{prop("ArchiveEventSourceMapping", "Properties", "Enabled"), "", "the mapping's Enabled (default true)"},
		{prop("ArchiveFunction", "Properties", "LoggingConfig", "LogGroup"), "AuditArchiveLogGroup", "where the function's output goes"},
		{prop("AuditArchiveLogGroup", "DeletionPolicy"), "Retain", "the archive's deletion policy"},
		{prop("AuditArchiveLogGroup", "UpdateReplacePolicy"), "Retain", "the archive's replacement policy"},
	} {
		if c.got != c.want {
			t.Errorf("%s is %q, want %q", c.what, c.got, c.want)
		}
	}

	filters := tmpl.path("Resources", "ArchiveEventSourceMapping", "Properties", "FilterCriteria", "Filters")
	if filters == nil || len(filters.Content) != 1 {
		t.Fatal("the mapping has not exactly one filter")
	}
	pattern, err := tmpl.single(tmpl.get(filters.Content[0], "Pattern"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Dynamodb struct {
			Keys struct {
				ID struct {
					S []struct{ Prefix string }
				} `json:"id"`
			}
		} `json:"dynamodb"`
	}
	if err := json.Unmarshal([]byte(pattern), &p); err != nil || len(p.Dynamodb.Keys.ID.S) != 1 || p.Dynamodb.Keys.ID.S[0].Prefix != dynamo.AuditRecordPrefix {
		t.Errorf("the mapping's filter %s does not select the keys beginning %q (%v)", pattern, dynamo.AuditRecordPrefix, err)
	}

	days := tmpl.path("Parameters", "AuditArchiveRetentionDays", "AllowedValues")
	if days == nil {
		t.Fatal("no AuditArchiveRetentionDays")
	}
	for _, d := range days.Content {
		if n, err := strconv.Atoi(d.Value); err != nil || n < 365 {
			t.Errorf("AuditArchiveRetentionDays allows %s days; the archive must keep a record at least a year", d.Value)
		}
	}
	if got := prop("AuditArchiveLogGroup", "Properties", "RetentionInDays"); got != "400" {
		t.Errorf("the archive keeps records %s days by default, want 400 (workflow.DefaultAuditRetention)", got)
	}
}

// resourcesOf are the logical IDs of the template's resources of a type.
func (t *template) resourcesOf(typ string) []string {
	resources := t.path("Resources")
	var out []string
	for i := 0; i+1 < len(resources.Content); i += 2 {
		if id := resources.Content[i].Value; t.resourceType(id) == typ {
			out = append(out, id)
		}
	}
	return out
}
