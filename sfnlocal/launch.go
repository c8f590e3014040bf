package sfnlocal

import (
	"sync"
	"time"
)

// launch runs the children a Parallel or Map state starts together, one
// after another in one goroutine: each, in index order, until it first
// waits or ends; then the task starts they deferred, in the same order.
// That is the order AWS records: every iteration's TaskStateEntered and
// TaskScheduled, then every TaskStarted. Children started while a launch
// runs (a nested Map, or the next item once one ends) join it.
//
// A child that holds the launch for launchStall (an endless JSONata
// evaluation) does not keep its siblings from starting: the launch goes
// on in another goroutine, and from then on the order is no longer fixed.
//
// A thread holds its launch (thread.launch) from its start until it first
// suspends; only the goroutines running the launch add to it.
type launch struct {
	e       *Engine
	mu      sync.Mutex
	begins  []func()
	starts  []func()
	b, s    int    // the next begin and start to run
	taken   uint64 // how many have run, so the watchdog sees progress
	workers int
	watch   *time.Timer
}

// launchStall is how long one child may hold a launch before the launch
// goes on without it. It is wall-clock time, whatever the engine's Clock.
const launchStall = time.Second

func (l *launch) addBegin(f func()) {
	l.mu.Lock()
	l.begins = append(l.begins, f)
	l.mu.Unlock()
}

func (l *launch) addStart(f func()) {
	l.mu.Lock()
	l.starts = append(l.starts, f)
	l.mu.Unlock()
}

// run starts the launch's first goroutine.
func (l *launch) run() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.e.spawn(l.work) {
		l.workers++
		l.watch = time.AfterFunc(launchStall, func() { l.watchdog(0) })
	}
}

func (l *launch) work() {
	for f := l.next(); f != nil; f = l.next() {
		f()
	}
}

// next takes the next begin, else the next start; nil ends the calling
// goroutine's part.
func (l *launch) next() func() {
	l.mu.Lock()
	defer l.mu.Unlock()
	var f func()
	switch {
	case l.b < len(l.begins):
		f, l.begins[l.b] = l.begins[l.b], nil
		l.b++
	case l.s < len(l.starts):
		f, l.starts[l.s] = l.starts[l.s], nil
		l.s++
	default:
		l.workers--
		if l.workers == 0 {
			l.watch.Stop()
		}
		return nil
	}
	l.taken++
	return f
}

// watchdog adds a goroutine when nothing was taken since the last look
// (seen) and work is waiting.
func (l *launch) watchdog(seen uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.workers == 0 {
		return
	}
	waiting := l.b < len(l.begins) || l.s < len(l.starts)
	if l.taken == seen && waiting && l.e.spawn(l.work) {
		l.workers++
	}
	taken := l.taken
	l.watch = time.AfterFunc(launchStall, func() { l.watchdog(taken) })
}
