package stepfunctionstest

import (
	"net/http"
	"sync"
)

// faults holds the failures a test asked for, per operation.
type faults struct {
	mu    sync.Mutex
	fail  map[string][]string
	drops map[string]int
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
