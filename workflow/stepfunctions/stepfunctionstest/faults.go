package stepfunctionstest

import (
	"net/http"
	"sync"
)

// faults holds the failures a test asked for, per operation.
type faults struct {
	mu     sync.Mutex
	fail   map[string][]string
	drops  map[string]int
	stalls map[string][]stall
}

// stall holds one call until released.
type stall struct {
	arrived chan struct{} // closed when the call arrives
	release chan struct{} // closed to let it go on
}

// FailNext makes the next n calls of op (such as "SendTaskSuccess") fail
// with the error errType without being applied. "ServiceUnavailable"
// answers HTTP 503, "InternalFailure" and "InternalServerError" 500, any
// other type 400 (so "ThrottlingException" is a throttle the SDK retries).
// Failures queue up behind earlier ones.
func (s *Server) FailNext(op string, n int, errType string) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	if s.faults.fail == nil {
		s.faults.fail = map[string][]string{}
	}
	for range n {
		s.faults.fail[op] = append(s.faults.fail[op], errType)
	}
}

// DropAfterApply makes the next n calls of op be applied and then lose
// their answer: the connection is closed without a response, as when a
// network drops it, so the SDK's retryer sends the call again.
func (s *Server) DropAfterApply(op string, n int) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	if s.faults.drops == nil {
		s.faults.drops = map[string]int{}
	}
	s.faults.drops[op] += n
}

// StallNext holds the next call of op before it is applied, as a slow
// service does: arrived is closed when the call arrives, and the call goes
// on (is applied and answered) once release is called. A caller that goes
// away meanwhile (its connection closed) leaves the call unapplied.
// Stalls queue up behind earlier ones.
func (s *Server) StallNext(op string) (arrived <-chan struct{}, release func()) {
	st := stall{arrived: make(chan struct{}), release: make(chan struct{})}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	if s.faults.stalls == nil {
		s.faults.stalls = map[string][]stall{}
	}
	s.faults.stalls[op] = append(s.faults.stalls[op], st)
	var once sync.Once
	return st.arrived, func() { once.Do(func() { close(st.release) }) }
}

// takeStall returns the stall for this call of op, if any.
func (f *faults) takeStall(op string) (stall, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	queue := f.stalls[op]
	if len(queue) == 0 {
		return stall{}, false
	}
	f.stalls[op] = queue[1:]
	return queue[0], true
}

// takeFailure returns the injected error for this call of op, if any.
func (f *faults) takeFailure(op string) (*apiError, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	queue := f.fail[op]
	if len(queue) == 0 {
		return nil, false
	}
	errType := queue[0]
	f.fail[op] = queue[1:]
	e := &apiError{Type: errType, Message: "Injected fault"}
	switch errType {
	case "ServiceUnavailable":
		e.Status, e.Message = http.StatusServiceUnavailable, "Service Unavailable"
	case "InternalFailure", "InternalServerError":
		e.Status, e.Message = http.StatusInternalServerError, "Internal Failure"
	case "ThrottlingException":
		e.Message = "Rate exceeded"
	}
	return e, true
}

// takeDrop reports whether this call of op loses its answer.
func (f *faults) takeDrop(op string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.drops[op] == 0 {
		return false
	}
	f.drops[op]--
	return true
}
