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
	errs   map[string]error
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
	if err := d.errs[group]; err != nil {
		return nil, err
	}
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

// SetErr makes the lookups of group fail with err (nil heals), as when
// Slack rate-limits usergroups.users.list.
func (d *Directory) SetErr(group string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.errs == nil {
		d.errs = map[string]error{}
	}
	d.errs[group] = err
}
