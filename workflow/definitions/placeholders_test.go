package definitions_test

import (
	"slices"
	"testing"

	"github.com/sfnapprovals/approvals/sfnlocal/host"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// TestShippedPlaceholders pins the placeholders each shipped definition
// needs, as the README documents them.
func TestShippedPlaceholders(t *testing.T) {
	t.Parallel()
	publish := []string{definitions.Approvers, definitions.Channel, definitions.DraftAgentFunctionArn, definitions.NotifierFunctionArn, definitions.PublishFunctionArn}
	want := map[string][]string{
		definitions.PublishWithApproval:        publish,
		definitions.PublishWithApprovalJSONata: publish,
		definitions.ApproveOrEscalate: {definitions.Approvers, definitions.Channel, definitions.DraftAgentFunctionArn, definitions.EscalationApprovers,
			definitions.FileRejectionFunctionArn, definitions.NotifierFunctionArn, definitions.PublishFunctionArn},
		definitions.BatchWithApprovedRetries: {definitions.Approvers, definitions.BatchBucket, definitions.Channel, definitions.NotifierFunctionArn,
			definitions.WorkerCluster, definitions.WorkerContainer, definitions.WorkerSecurityGroups, definitions.WorkerSubnets, definitions.WorkerTaskDefinition},
		definitions.BatchWithApprovedRetriesLambda: {definitions.Approvers, definitions.BatchBucket, definitions.Channel, definitions.NotifierFunctionArn, definitions.ProcessItemFunctionArn},
	}
	for _, name := range definitions.Names() {
		raw, err := definitions.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := host.Placeholders(raw); !slices.Equal(got, want[name]) {
			t.Errorf("%s: placeholders %q, want %q", name, got, want[name])
		}
		if _, err := host.Substitute(raw, nil); err == nil {
			t.Errorf("%s deployed without substitutions", name)
		}
	}
}
