package sfnlocal

import (
	"context"
	"crypto/rand"
	"sync"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// Options configures an Engine. Zero values pick defaults.
type Options struct {
	// Clock drives every timer; default RealClock().
	Clock Clock
	// Integrations run Task states; the first whose Supports accepts a
	// state's Resource runs it.
	Integrations []task.Integration
	// Region and AccountID go into ARNs; defaults us-east-1 and
	// 123456789012.
	Region    string
	AccountID string
	// Logger receives diagnostics (never task tokens); default no-op.
	Logger *zap.Logger
	// MaxFinishedExecutions bounds how many ended executions (SUCCEEDED,
	// FAILED, TIMED_OUT, ABORTED) the engine remembers, with their
	// histories; past it the ones that ended first are forgotten and
	// answer ExecutionDoesNotExist, like an unknown ARN. Running executions
	// are always kept. AWS keeps closed executions for 90 days: this is a
	// local memory bound only. Default (0 or less) 10,000.
	MaxFinishedExecutions int
	// Events, when set, receives an execution status change event (the
	// JSON document EventBridge delivers, detail-type "Step Functions
	// Execution Status Change") each time a Standard execution's status
	// changes: RUNNING once it started, then SUCCEEDED, FAILED, TIMED_OUT
	// or ABORTED once it ended, each after the history event that caused
	// it. Express executions emit none, as on AWS. Events are delivered
	// asynchronously, one call at a time, in the order they happened, from
	// a goroutine that holds no engine lock, so Events may call the
	// engine. A slow Events never holds up executions: up to EventBuffer
	// events wait for it, and an event that finds the buffer full is
	// dropped and logged (EventBridge's delivery is best effort too).
	// Events must return once ctx is done; Close cancels it.
	Events func(ctx context.Context, event []byte)
	// EventBuffer is how many events may wait for Events; default (0 or
	// less) 1,000.
	EventBuffer int
}

// defaultMaxFinishedExecutions is Options.MaxFinishedExecutions' default.
const defaultMaxFinishedExecutions = 10000

// Engine runs state machines and their executions. Its methods map one to
// one onto the Step Functions API operations and are safe for concurrent
// use. Executions run in the background until they end or Close is called.
type Engine struct {
	clock  Clock
	integs []task.Integration
	region string
	acct   string
	log    *zap.Logger

	ctx    context.Context
	cancel context.CancelFunc
	tokens tokenRegistry
	events *eventQueue // nil without Options.Events

	mu         sync.Mutex
	machines   map[string]*machine
	machineSeq []*machine
	executions map[string]*execution
	finished   []*execution // ended executions still held, in the order they ended
	maxDone    int

	goMu   sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// New returns an Engine ready for use; Close releases it.
func New(opts Options) *Engine {
	e := &Engine{
		clock:      opts.Clock,
		integs:     opts.Integrations,
		region:     opts.Region,
		acct:       opts.AccountID,
		log:        opts.Logger,
		machines:   map[string]*machine{},
		executions: map[string]*execution{},
		maxDone:    opts.MaxFinishedExecutions,
	}
	if e.clock == nil {
		e.clock = RealClock()
	}
	if e.region == "" {
		e.region = "us-east-1"
	}
	if e.acct == "" {
		e.acct = "123456789012"
	}
	if e.log == nil {
		e.log = zap.NewNop()
	}
	if e.maxDone <= 0 {
		e.maxDone = defaultMaxFinishedExecutions
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	if _, err := rand.Read(e.tokens.key[:]); err != nil {
		panic("sfnlocal: no randomness: " + err.Error())
	}
	if opts.Events != nil {
		e.events = newEventQueue(e, opts.Events, opts.EventBuffer)
	}
	return e
}

// Close stops event delivery, aborts every running execution, cancels
// in-flight integration calls and waits for the engine's goroutines to
// return. Events still queued and those of the executions Close aborts
// are not delivered; a call to Options.Events under way sees its context
// cancelled, and Close waits for it to return. Methods called after Close
// keep answering but no longer start work.
func (e *Engine) Close() {
	e.goMu.Lock()
	if e.closed {
		e.goMu.Unlock()
		return
	}
	e.closed = true
	e.goMu.Unlock()

	if e.events != nil {
		e.events.stop()
	}

	e.mu.Lock()
	running := make([]*execution, 0)
	for _, x := range e.executions {
		running = append(running, x)
	}
	e.mu.Unlock()
	for _, x := range running {
		x.terminate(statusAborted, EventExecutionAborted, &ErrorEventDetails{Error: "Engine.Closed", Cause: "The local engine was closed."})
	}
	e.cancel()
	e.wg.Wait()
}

// spawn runs f in a goroutine that Close waits for; after Close it does
// nothing and returns false.
func (e *Engine) spawn(f func()) bool {
	e.goMu.Lock()
	defer e.goMu.Unlock()
	if e.closed {
		return false
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		f()
	}()
	return true
}

func (e *Engine) integrationFor(resource string) task.Integration {
	for _, in := range e.integs {
		if in.Supports(resource) {
			return in
		}
	}
	return nil
}

// hasTestCase reports whether a configured integration defines the mock
// test case for the machine.
func (e *Engine) hasTestCase(machineArn, testCase string) bool {
	for _, in := range e.integs {
		if c, ok := in.(task.TestCaseChecker); ok && c.HasTestCase(machineArn, testCase) {
			return true
		}
	}
	return false
}

// executionEnded tells the integrations that keep per-execution state that
// an execution ended.
func (e *Engine) executionEnded(executionArn string) {
	for _, in := range e.integs {
		if o, ok := in.(task.ExecutionObserver); ok {
			o.ExecutionEnded(executionArn)
		}
	}
}
