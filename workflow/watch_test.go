package workflow_test

import (
	"slices"
	"testing"

	"github.com/sfnapprovals/approvals/workflow"
)

// The Homes an approval's change re-publishes: everybody whose list of
// work it is on, the members of its groups, and who asked for it (their
// Home lists their open requests).
func TestConcernedIncludesTheRequester(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := workflow.Approval{
		Approvers:   []string{"U0ANN", "S0456DEF"},
		RequestedBy: "U0ASK",
		Delegations: []workflow.Delegation{{From: "U0ANN", To: "U0DEL"}},
	}
	got := f.svc.Concerned(t.Context(), a)
	slices.Sort(got)
	want := []string{"U0ANN", "U0ASK", "U0DEL", "U0GROUP1"}
	if !slices.Equal(got, want) {
		t.Errorf("Concerned = %q, want %q", got, want)
	}
}
