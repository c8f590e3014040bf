// Package lambdaruntime emulates the AWS Lambda Runtime API
// (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html) for one
// function, so a real Lambda binary (a provided.al2023 bootstrap) can be run
// and invoked locally: start the emulator, run the binary with
// AWS_LAMBDA_RUNTIME_API set to Addr, and call Invoke.
//
// It serves invocation/next (long-poll), invocation/{id}/response,
// invocation/{id}/error and init/error. It does not start, freeze or kill
// the function's process; that is the caller's job. It does not import the
// testing package, so a local Step Functions engine can invoke Lambdas
// through it too.
package lambdaruntime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Defaults for Options.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultFunctionARN = "arn:aws:lambda:us-east-1:123456789012:function:local"
	// MaxPayload is Lambda's 6 MB limit on a synchronous invocation's
	// request and response.
	MaxPayload = 6 * 1024 * 1024
)

// ErrClosed is returned by Invoke and WaitNext after Close.
var ErrClosed = errors.New("lambdaruntime: emulator closed")

// Options configure a Server. The zero value uses the defaults.
type Options struct {
	// FunctionARN is sent as Lambda-Runtime-Invoked-Function-Arn.
	FunctionARN string
	// Timeout is the function timeout: it sets Lambda-Runtime-Deadline-Ms,
	// and an invocation without a result by then fails with
	// "Sandbox.Timedout".
	Timeout time.Duration
}

// Result is the outcome of one invocation. ErrorType is empty on success;
// on a function error Payload is the raw error document the runtime posted.
type Result struct {
	Payload      []byte
	ErrorType    string
	ErrorMessage string
	// Duration is the invocation as Lambda bills and reports it: from the
	// moment /next handed the event out to the moment the result arrived.
	// It leaves out the caller's side of the hop (queueing the event, the
	// result travelling back); zero for a result that did not come from
	// the runtime (a timeout, an init error).
	Duration time.Duration
}

// Failed reports whether the invocation ended in a function error.
func (r Result) Failed() bool { return r.ErrorType != "" }

// Server is a running Runtime API emulator. Its methods are safe for
// concurrent use; invocations queue and are handed to the runtime one per
// /next poll, in order.
type Server struct {
	opts  Options
	ln    net.Listener
	http  *http.Server
	serve chan struct{} // closed when Serve returned

	queue  chan *invocation
	closed chan struct{}
	once   sync.Once

	mu       sync.Mutex
	inflight map[string]*invocation
	polled   chan struct{} // closed at the first /next
	initErr  *Result
	failed   chan struct{} // closed at init/error
}

type invocation struct {
	id       string
	payload  []byte
	accepted chan time.Time // buffered: the deadline, set when /next hands it out
	done     chan Result    // buffered: one result
	handed   time.Time      // when /next handed it out (set before it is in flight)
}

// Start starts an emulator with default options on 127.0.0.1 at a free
// port.
func Start() (*Server, error) { return StartWith(Options{}) }

// StartWith starts an emulator with opts on 127.0.0.1 at a free port.
func StartWith(opts Options) (*Server, error) {
	if opts.FunctionARN == "" {
		opts.FunctionARN = DefaultFunctionARN
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("lambdaruntime: listen: %w", err)
	}
	s := &Server{
		opts:     opts,
		ln:       ln,
		serve:    make(chan struct{}),
		queue:    make(chan *invocation),
		closed:   make(chan struct{}),
		inflight: map[string]*invocation{},
		polled:   make(chan struct{}),
		failed:   make(chan struct{}),
	}
	s.http = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.serve)
		_ = s.http.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	return s, nil
}

// Addr is the host:port to put in AWS_LAMBDA_RUNTIME_API.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server, ends every long-poll and fails pending Invoke
// calls with ErrClosed. It is safe to call more than once.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		close(s.closed)
		err = s.http.Close()
		<-s.serve
	})
	return err
}

// WaitNext returns when the runtime has polled /next for the first time,
// that is when the function finished initialising. It returns the init
// error if the runtime reported one first, ctx's error or ErrClosed.
func (s *Server) WaitNext(ctx context.Context) error {
	select {
	case <-s.polled:
		return nil
	case <-s.failed:
		r := s.initError()
		return fmt.Errorf("lambdaruntime: function init failed: %s: %s", r.ErrorType, r.ErrorMessage)
	case <-ctx.Done():
		return ctx.Err()
	case <-s.closed:
		return ErrClosed
	}
}

// Invoke sends payload to the function and waits for its result. A
// function error is a Result with ErrorType set, not an error; the error is
// for an invocation that never completed: ctx done, ErrClosed, or a payload
// over MaxPayload. After an init error every invocation fails with that
// error's type, as Lambda does. An invocation whose caller gave up stays
// in progress until the runtime posts its result, which is then dropped,
// so the runtime never sees an error for the caller's impatience.
func (s *Server) Invoke(ctx context.Context, payload []byte) (Result, error) {
	if len(payload) > MaxPayload {
		return Result{}, fmt.Errorf("lambdaruntime: payload of %d bytes is over the %d-byte limit", len(payload), MaxPayload)
	}
	inv := &invocation{id: newRequestID(), payload: payload, accepted: make(chan time.Time, 1), done: make(chan Result, 1)}
	select {
	case s.queue <- inv:
	case <-s.failed:
		return s.initError(), nil
	case <-ctx.Done():
		return Result{}, ctx.Err()
	case <-s.closed:
		return Result{}, ErrClosed
	}
	timer := time.NewTimer(time.Until(<-inv.accepted))
	defer timer.Stop()
	select {
	case r := <-inv.done:
		return r, nil
	case <-timer.C:
		return Result{
			ErrorType:    "Sandbox.Timedout",
			ErrorMessage: fmt.Sprintf("%s Task timed out after %.2f seconds", inv.id, s.opts.Timeout.Seconds()),
		}, nil
	case <-s.failed:
		return s.initError(), nil
	case <-ctx.Done():
		return Result{}, ctx.Err()
	case <-s.closed:
		return Result{}, ErrClosed
	}
}

func (s *Server) initError() Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *s.initErr
}

// newRequestID returns a random UUID-shaped request ID.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
