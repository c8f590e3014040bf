package workflowtest

import (
	"context"
	"sync"

	"github.com/sfnapprovals/approvals/workflow"
)

// Resumer is an in-memory workflow.Resumer with Step Functions' callback
// semantics: a token closes on its first result; a later result for the
// same approval reports success (ours landed), anything else on a closed or
// unknown token reports EEXPIRED.
type Resumer struct {
	mu      sync.Mutex
	tasks   map[string]*Task // by token
	err     error
	changed chan struct{}
}

var _ workflow.Resumer = (*Resumer)(nil)

// Task is what the execution waiting on one token received.
type Task struct {
	Open       bool
	ApprovalID string // set by the result that closed it
	Output     string
	Error      string
	Cause      string
	Results    int // results that closed the task (1 at most, by design)
	Heartbeats int // heartbeats it received while open
}

// NewResumer returns a Resumer with no open tasks.
func NewResumer() *Resumer {
	return &Resumer{tasks: map[string]*Task{}, changed: make(chan struct{})}
}

// Open registers a task waiting on token.
func (r *Resumer) Open(token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tasks[token] = &Task{Open: true}
}

// TimeOut closes the task as Step Functions does when it times out.
func (r *Resumer) TimeOut(token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.tasks[token]; ok {
		t.Open = false
	}
	r.notify()
}

// SetErr makes every later call fail with err (a transient outage); nil
// heals.
func (r *Resumer) SetErr(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.err = err
}

// Task returns a copy of what the task waiting on token received.
func (r *Resumer) Task(token string) (Task, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.tasks[token]
	if !ok {
		return Task{}, false
	}
	return *t, true
}

// Changed returns a channel closed at the next change.
func (r *Resumer) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

func (r *Resumer) notify() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// Succeed implements workflow.Resumer.
func (r *Resumer) Succeed(_ context.Context, a workflow.Approval, output []byte) error {
	return r.close(a, func(t *Task) { t.Output = string(output) })
}

// Fail implements workflow.Resumer.
func (r *Resumer) Fail(_ context.Context, a workflow.Approval, errorName, cause string) error {
	return r.close(a, func(t *Task) { t.Error, t.Cause = errorName, cause })
}

// Waiting implements workflow.Resumer: true while the task waiting on a's
// token is open; the heartbeat that tells is counted (Task.Heartbeats).
func (r *Resumer) Waiting(_ context.Context, a workflow.Approval) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return false, r.err
	}
	t, ok := r.tasks[a.TaskToken.Reveal()]
	if !ok || !t.Open {
		return false, nil
	}
	t.Heartbeats++
	return true, nil
}

func (r *Resumer) close(a workflow.Approval, set func(*Task)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	t, ok := r.tasks[a.TaskToken.Reveal()]
	switch {
	case !ok:
		return workflow.Errorf(workflow.EEXPIRED, "the task of approval %s does not exist", a.ID)
	case !t.Open && t.ApprovalID == a.ID:
		return nil
	case !t.Open:
		return workflow.Errorf(workflow.EEXPIRED, "the task of approval %s timed out or was closed", a.ID)
	}
	t.Open, t.ApprovalID = false, a.ID
	t.Results++
	set(t)
	r.notify()
	return nil
}
