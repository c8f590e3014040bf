package dynamo

import (
	"sync"
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
	items map[string]record
	max   int
}

func newVersions(max int) *versions {
	return &versions{items: map[string]record{}, max: max}
}

func (v *versions) get(id string) (record, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	r, ok := v.items[id]
	return r, ok
}

func (v *versions) put(r record) {
	v.mu.Lock()
	defer v.mu.Unlock()
	a := r.a
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
	v.items[a.ID] = r
}

func (v *versions) forget(id string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.items, id)
}
