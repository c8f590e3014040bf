package dynamo

import (
	"fmt"
	"testing"

	"github.com/sfnapprovals/approvals/workflow"
)

// BenchmarkClaimFinish measures a decision's two conditional writes (each a
// consistent read and a conditional put) against DynamoDB Local.
func BenchmarkClaimFinish(b *testing.B) {
	s := newStore(b)
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = create(b, s, newApproval(fmt.Sprintf("token-bench-%d", i), 0)).ID
	}
	b.ResetTimer()
	for _, id := range ids {
		if _, err := s.Claim(b.Context(), id, approve, t0); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Finish(b.Context(), id, workflow.StatusDecided, t0); err != nil {
			b.Fatal(err)
		}
	}
}
