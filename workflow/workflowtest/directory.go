package workflowtest

import (
	"context"
	"slices"
	"sync"

	"github.com/sfnapprovals/approvals/workflow"
)

// Directory is an in-memory workflow.Directory.
type Directory struct {
	mu     sync.Mutex
	groups map[string][]string
	calls  int
}

var _ workflow.Directory = (*Directory)(nil)

// NewDirectory returns a Directory with the given groups (ID → members).
func NewDirectory(groups map[string][]string) *Directory {
	return &Directory{groups: groups}
}

// GroupMembers implements workflow.Directory.
func (d *Directory) GroupMembers(_ context.Context, group string) ([]string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls++
	members, ok := d.groups[group]
	if !ok {
		return nil, workflow.Errorf(workflow.ENOTFOUND, "no user group %s", group)
	}
	return slices.Clone(members), nil
}

// Calls counts GroupMembers calls.
func (d *Directory) Calls() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls
}
