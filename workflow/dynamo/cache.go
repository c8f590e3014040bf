package dynamo

import (
	"sync"

	"github.com/sfnapprovals/approvals/workflow"
)

// versions remembers the last version of each approval this process read
// or wrote, so a change can be written optimistically without reading the
// item first: a decision's Claim, Finish and MessageSynced then cost one
// write each instead of a read and a write. A stale entry costs nothing
// more than the read it replaces: the version condition fails and DynamoDB
// returns the current item. Entries are bounded, and an approval that can
// no longer change (final, its message synced or given up) is dropped;
// clearing any entry is safe. Listed approvals (List, ListOpen) are never
// put here: they lack what a write must keep.
type versions struct {
	mu    sync.Mutex
	items map[string]versioned
	max   int
}

type versioned struct {
	a       workflow.Approval
	version int64
}

func newVersions(max int) *versions {
	return &versions{items: map[string]versioned{}, max: max}
}

func (v *versions) get(id string) (workflow.Approval, int64, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.items[id]
	return e.a, e.version, ok
}

func (v *versions) put(a workflow.Approval, version int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if a.Status.Final() && (a.MessageSynced || a.MessageGaveUp) {
		delete(v.items, a.ID)
		return
	}
	if _, ok := v.items[a.ID]; !ok && len(v.items) >= v.max {
		for id := range v.items { // drop an arbitrary tenth
			delete(v.items, id)
			if len(v.items) < v.max*9/10 {
				break
			}
		}
	}
	v.items[a.ID] = versioned{a: a, version: version}
}

func (v *versions) forget(id string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.items, id)
}
