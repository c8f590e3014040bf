package definitions_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// Every shipped definition has a sample input, and the sample runs: it
// passes CheckInput and reaches the definition's first approval request,
// asked by definitions.Requester.
func TestSamplesReachTheirFirstRequest(t *testing.T) {
	t.Parallel()
	for _, name := range definitions.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			raw, err := definitions.Sample(name)
			if err != nil {
				t.Fatal(err)
			}
			var input map[string]any
			if err := json.Unmarshal(raw, &input); err != nil {
				t.Fatalf("the sample is not a JSON object: %v", err)
			}
			for _, field := range []string{"approvers", "escalationApprovers", "channel"} {
				if _, ok := input[field]; ok {
					t.Errorf("the sample names %s, which the definition refuses", field)
				}
			}
			var h *harness
			batch := strings.HasPrefix(name, "batch-")
			if batch {
				// The batch workers reject the item with "fail": true and
				// break on the one with "flaky": true once, which Retry
				// retries after its backoff.
				h = newBatchFixture(t).harness
			} else {
				h = newHarness(t)
			}
			register(h, "draft-agent", func(draftRequest) (draftReply, error) {
				return draftReply{Drafts: []string{"A first draft."}, Summary: "One draft."}, nil
			})
			arn := h.start(name, json.RawMessage(raw))
			if batch {
				(&batchFixture{harness: h}).retried(1)
			}
			a := h.nextApproval()
			if a.ExecutionARN != arn || a.RequestedBy != definitions.Requester {
				t.Errorf("first request: execution %s requested by %s; want %s by %s", a.ExecutionARN, a.RequestedBy, arn, definitions.Requester)
			}
		})
	}
}

func TestSampleOfAnUnknownDefinition(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"nope.asl.json", "publish-with-approval", "../samples/publish-with-approval.asl.json"} {
		if _, err := definitions.Sample(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Sample(%q) = %v, want fs.ErrNotExist", name, err)
		}
	}
}
