package sfnlocal

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// thread runs one sequence of states: an execution's top level, a
// Parallel branch or a Map iteration. It is driven by whichever goroutine
// holds it: the one that started it, or the one a callback, timer or
// child resumed it in. While it waits on a task token, a timer or its
// children, no goroutine holds it, so a paused execution costs memory, not
// a stack.
type thread struct {
	x    *execution
	def  *definition
	vars map[string]any
	done func(out any, serr *stateError)
	// silent threads (a distributed Map's child runs and what they start)
	// record no events: on AWS those are separate executions. sub counts
	// the events such a run would have, for the history cap.
	silent bool
	sub    *childHistory

	aborted atomic.Bool
	// ctx ends once the thread is aborted (and so when its execution is
	// stopped, times out or the engine closes) or has ended: it stops the
	// thread's JSONata evaluations, even endless ones. A child thread's
	// derives from its parent's.
	ctx    context.Context
	cancel context.CancelFunc
	// guarded by x.mu
	lastID  int64
	pending pendingOp
	// launch runs the thread from its start until it first suspends; nil
	// after that and for a thread no launch started.
	launch *launch

	// owned by the goroutine driving the thread
	st    *state
	input any
	// inputText is input's JSON text once known, shared by the events
	// that record it.
	inputText string
	enteredID int64
	// enteredAfter is the event the state's entry followed.
	enteredAfter int64
	entered      time.Time
	retries      []int64
	retryCount   int
	token        string
	item         *mapItem
	// failEvent is the <Type>StateFailed a Map or Parallel state records
	// once its children failed and no retrier takes the error.
	failEvent string
}

// pendingOp is what a suspended thread waits for.
type pendingOp interface {
	// abortLocked cancels the wait and records its abort; x.mu is held.
	abortLocked()
}

// flow says what a state step left the thread doing.
type flow int

const (
	flowNext    flow = iota // entered a new state
	flowRetry               // retry the current state now
	flowSuspend             // waiting; a callback will resume it
	flowEnd                 // the thread ended
)

func newThread(x *execution, parent context.Context, def *definition, vars map[string]any, done func(any, *stateError)) *thread {
	t := &thread{x: x, def: def, vars: vars, done: done}
	t.ctx, t.cancel = context.WithCancel(parent)
	return t
}

// begin runs the thread from its StartAt state in the calling goroutine.
func (t *thread) begin(input any) {
	t.st, t.input, t.inputText = t.def.states[t.def.startAt], input, ""
	t.run(flowNext)
}

// run steps through states until the thread suspends or ends. A thread
// also stops once its context ends, so a child started just as its parent
// was aborted cannot run on unseen.
func (t *thread) run(f flow) {
	for !t.aborted.Load() && t.ctx.Err() == nil {
		switch f {
		case flowNext:
			t.enter()
		case flowRetry:
		default:
			return
		}
		if t.sub != nil && t.sub.full.Load() {
			t.end(nil, historyFullError())
			return
		}
		f = t.attempt()
	}
}

// resume continues a suspended thread in a new goroutine with step's flow.
func (t *thread) resume(step func() flow) {
	t.x.e.spawn(func() { t.proceed(step) })
}

// proceed continues a suspended thread in the calling goroutine.
func (t *thread) proceed(step func() flow) {
	if t.aborted.Load() {
		return
	}
	t.run(step())
}

func (t *thread) enter() {
	t.entered = t.x.e.clock.Now()
	t.retries, t.retryCount, t.token = nil, 0, ""
	if t.inputText == "" {
		t.inputText = jsonvalue.Encode(t.input)
	}
	x := t.x
	x.mu.Lock()
	defer x.mu.Unlock()
	t.enteredAfter = t.lastID
	t.enteredID = t.recordLocked(StateEntered(t.st.typ), &StateEnteredEventDetails{Name: t.st.name, Input: t.inputText, InputDetails: notTruncated})
}

// recordEvaluation records the EvaluationFailed event of an error found
// evaluating one of the state's fields, chained as AWS chains it (see
// stateError.evaluation); the state's next event follows it.
func (t *thread) recordEvaluation(serr *stateError) {
	if serr.evaluation == nil {
		return
	}
	d := *serr.evaluation
	d.State = t.st.name
	x := t.x
	x.mu.Lock()
	defer x.mu.Unlock()
	last := t.lastID
	if !serr.checkedValue {
		t.lastID = t.enteredAfter
	}
	if t.recordLocked(EventEvaluationFailed, &d) == 0 {
		t.lastID = last
	}
}

// record appends an event to the execution's history, chained to the
// thread's previous event. An aborted thread records nothing more.
func (t *thread) record(typ string, d any) int64 {
	x := t.x
	x.mu.Lock()
	defer x.mu.Unlock()
	return t.recordLocked(typ, d)
}

func (t *thread) recordLocked(typ string, d any) int64 {
	if t.aborted.Load() {
		return 0
	}
	return t.recordAbortLocked(typ, d)
}

// recordAbortLocked records the events of an abort: the thread is already
// marked aborted when they are written.
func (t *thread) recordAbortLocked(typ string, d any) int64 {
	if t.silent {
		t.sub.addLocked()
		return 0
	}
	if t.x.status != StatusRunning {
		return 0
	}
	id := t.x.appendLocked(typ, t.lastID, d)
	if id != 0 {
		t.lastID = id
	}
	return id
}

// noteLocked appends an event chained to the thread's previous event
// without becoming the one the next event follows, as AWS records
// MapStateSucceeded and ParallelStateSucceeded: the state's exit follows
// the event before them.
func (t *thread) noteLocked(typ string, d any) {
	if t.aborted.Load() {
		return
	}
	if t.silent {
		t.sub.addLocked()
		return
	}
	if t.x.status != StatusRunning {
		return
	}
	t.x.appendLocked(typ, t.lastID, d)
}

func (t *thread) lastIDLocked() int64 {
	if t == nil {
		return 0
	}
	return t.lastID
}

// suspend registers what the thread waits for; false if it was aborted.
// From then on another goroutine may resume the thread: it leaves its
// launch.
func (t *thread) suspendLocked(p pendingOp) bool {
	t.launch = nil
	if t.aborted.Load() {
		return false
	}
	t.pending = p
	return true
}

// claimLocked takes p's completion: false if p was aborted or settled.
func (t *thread) claimLocked(p pendingOp) bool {
	if t.pending != p || t.aborted.Load() {
		return false
	}
	t.pending = nil
	return true
}

// abortLocked stops the thread and whatever it waits on.
func (t *thread) abortLocked() {
	if t.aborted.Swap(true) {
		return
	}
	if p := t.pending; p != nil {
		t.pending = nil
		p.abortLocked()
	}
	t.cancel()
}

// exit records the state's exit and moves to next, or ends the thread.
func (t *thread) exit(output any, assigned map[string]any, next string) flow {
	text, serr := t.payloadText(output)
	var vars map[string]string
	if serr == nil {
		vars, serr = t.assignedText(assigned)
	}
	if serr != nil {
		return t.fail(serr)
	}
	d := &StateExitedEventDetails{Name: t.st.name, Output: text, OutputDetails: notTruncated}
	if len(vars) > 0 {
		d.AssignedVariables, d.AssignedVariablesDetails = vars, notTruncated
	}
	t.record(StateExited(t.st.typ), d)
	t.vars = withVars(t.vars, assigned)
	if r := t.underTest(); r != nil {
		r.exited(t, output, next)
		return t.end(output, nil)
	}
	if next == "" {
		return t.end(output, nil)
	}
	t.st, t.input, t.inputText = t.def.states[next], output, text
	return flowNext
}

// end finishes the thread with an output or an error.
func (t *thread) end(out any, serr *stateError) flow {
	if !t.aborted.Load() {
		t.done(out, serr)
	}
	t.cancel()
	return flowEnd
}

// complete finishes a state that produced result, through the data-flow
// tail, to its Next.
func (t *thread) complete(result any) flow {
	out, assigned, serr := t.finish(t.st, result)
	if serr != nil {
		return t.fail(serr)
	}
	return t.exit(out, assigned, t.nextOf(t.st))
}

func (t *thread) nextOf(st *state) string {
	if st.end {
		return ""
	}
	return st.next
}

// fail handles an error raised by the current state: Retry, then Catch,
// else the thread fails. An error found evaluating a field records its
// EvaluationFailed first, whatever happens next. A Map or Parallel state
// whose children failed records its <Type>StateFailed only when no
// retrier takes the error.
func (t *thread) fail(serr *stateError) flow {
	failEvent := t.failEvent
	t.failEvent = ""
	t.recordEvaluation(serr)
	if !serr.terminal() {
		if f, ok := t.retry(serr); ok {
			return f
		}
	}
	if failEvent != "" {
		t.record(failEvent, nil)
	}
	if !serr.terminal() {
		if c := findCatcher(t.st.catch, serr); c != nil {
			return t.caught(c, serr)
		}
	}
	return t.end(nil, serr)
}

// attempt runs one attempt of the current state.
func (t *thread) attempt() flow {
	switch t.st.typ {
	case "Pass":
		return t.runPass()
	case "Succeed":
		return t.runSucceed()
	case "Fail":
		return t.runFail()
	case "Choice":
		return t.runChoice()
	case "Wait":
		return t.runWait()
	case "Task":
		return t.runTask()
	case "Parallel":
		return t.runParallel()
	case "Map":
		return t.runMap()
	}
	return t.end(nil, t.runtimef("Unsupported state type %q", t.st.typ))
}
