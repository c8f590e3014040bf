// Package stepfunctionstest is a stateful Step Functions test double for the
// callback (.waitForTaskToken) API. It speaks the AWS JSON 1.0 protocol over
// real HTTP, so the real aws-sdk-go-v2 client talks to it (see NewClient),
// and it answers SendTaskSuccess, SendTaskFailure, SendTaskHeartbeat,
// GetExecutionHistory and DescribeExecution with AWS's semantics and error
// types. Tests and the local demo open tasks with StartTask, play the
// notifier with Submit and the clock with TimeOut, inject faults with
// FailNext and DropAfterApply, and read results with Outcome, WaitClosed,
// Successes and Calls. It does not run state machines: an execution stays
// RUNNING, and a failed or timed-out task is not caught or propagated.
package stepfunctionstest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// maxBody bounds a request body: the largest valid request (a 262144-char
// output plus a token) is well below it.
const maxBody = 4 << 20

// Server is a Step Functions double listening on 127.0.0.1. Its methods
// are safe for concurrent use.
type Server struct {
	ln        net.Listener
	http      *http.Server
	cb        *callbacks
	faults    faults
	done      chan struct{}
	closeOnce sync.Once

	mu    sync.Mutex
	calls map[string]int
}

// NewServer starts a server on a free port of 127.0.0.1. It panics if it
// cannot listen, like httptest.NewServer. Call Close when done.
func NewServer() *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("stepfunctionstest: listen: " + err.Error())
	}
	s := &Server{ln: ln, cb: newCallbacks(), done: make(chan struct{}), calls: map[string]int{}}
	s.http = &http.Server{Handler: s}
	go func() { _ = s.http.Serve(ln) }()
	return s
}

// URL is the endpoint to give the SDK, such as http://127.0.0.1:41234.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server, closes its connections and wakes every
// WaitClosed. It is safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		_ = s.http.Close()
	})
}

// StartTask opens a callback task for the state stateName in the execution,
// creating the execution (RUNNING) on first use; an empty executionArn
// creates a new execution with a generated ARN. It records
// TaskStateEntered, TaskScheduled and TaskStarted (after ExecutionStarted
// for a new execution) and returns the task's fresh token.
func (s *Server) StartTask(executionArn, stateName string) (token string) {
	return s.cb.startTask(executionArn, stateName)
}

// Submit records TaskSubmitted with output, what the invoked integration
// (the notifier) returned. It does nothing for an unknown token.
func (s *Server) Submit(token string, output []byte) { s.cb.submit(token, output) }

// TimeOut closes an open task as TimeoutSeconds does: it records
// TaskTimedOut with error "States.Timeout", and later SendTask* calls get
// TaskTimedOut. It does nothing for an unknown or closed task.
func (s *Server) TimeOut(token string) { s.cb.timeOut(token) }

// Outcome reports what became of the task; State is "" for an unknown
// token.
func (s *Server) Outcome(token string) Outcome { return s.cb.outcome(token) }

// WaitClosed blocks until the task is closed and returns its outcome. It
// returns early with an error when ctx ends, the server is closed or the
// token is unknown.
func (s *Server) WaitClosed(ctx context.Context, token string) (Outcome, error) {
	return s.cb.waitClosed(ctx, s.done, token)
}

// Successes counts tasks closed by SendTaskSuccess, over all executions.
func (s *Server) Successes() int { return s.cb.successCount() }

// Calls counts the requests received for op (such as "SendTaskSuccess"),
// including injected failures, dropped answers and SDK retries.
func (s *Server) Calls(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[op]
}

// ServeHTTP answers one AWS JSON 1.0 request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), "AWSStepFunctions.")
	if r.Method != http.MethodPost || r.URL.Path != "/" || !ok {
		writeError(w, &apiError{Type: "UnknownOperationException", Message: "Unknown operation"})
		return
	}
	s.count(op)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, &apiError{Type: "SerializationException", Message: "Could not read the request body"})
		return
	}
	if e, failed := s.faults.takeFailure(op); failed {
		writeError(w, e)
		return
	}
	if st, ok := s.faults.takeStall(op); ok {
		close(st.arrived)
		select {
		case <-st.release:
		case <-r.Context().Done():
			return // the caller went away: nothing applied
		}
	}
	handle, ok := s.operations()[op]
	if !ok {
		writeError(w, &apiError{Type: "UnknownOperationException", Message: "Unknown operation " + op})
		return
	}
	resp, apiErr := handle(body)
	if s.faults.takeDrop(op) {
		dropConnection(w)
		return
	}
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) count(op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[op]++
}

// dropConnection closes the connection without writing a response.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // net/http closes the connection quietly
	}
	_ = conn.Close()
}

// apiError is an error answer: HTTP status (400 when zero), the AWS error
// type and its message.
type apiError struct {
	Status  int
	Type    string
	Message string
}

func writeError(w http.ResponseWriter, e *apiError) {
	status := e.Status
	if status == 0 {
		status = http.StatusBadRequest
	}
	writeJSON(w, status, map[string]string{"__type": e.Type, "message": e.Message})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"__type":"InternalFailure","message":"Internal Failure"}`)
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amzn-RequestId", newRequestID())
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// decode reads a request body, answering SerializationException for
// anything that is not a JSON object of the expected shape.
func decode(body []byte, v any) *apiError {
	if err := json.Unmarshal(body, v); err != nil {
		msg := "Malformed request body"
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			msg = "Unexpected value type for field " + typeErr.Field
		}
		return &apiError{Type: "SerializationException", Message: msg}
	}
	return nil
}
