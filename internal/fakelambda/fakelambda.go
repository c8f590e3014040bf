// Package fakelambda serves the AWS Lambda Invoke API
// (POST /2015-03-31/functions/{name}/invocations, REST JSON) on a loopback
// port for tests, so code that invokes functions through aws-sdk-go-v2
// (AWS_ENDPOINT_URL_LAMBDA) runs against functions written in Go or real
// Lambda binaries behind internal/lambdaruntime.
//
// It answers as Lambda does: 200 with the function's output, or with
// X-Amz-Function-Error: Unhandled and the error document; 202 at once for
// InvocationType Event, the function then running in the background; 404
// ResourceNotFoundException for an unknown function. FailNext injects the
// API errors Lambda answers under load (429 TooManyRequestsException …).
package fakelambda

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"
)

// Handler runs a function: it gets the payload and returns the output or
// a function error.
type Handler func(ctx context.Context, payload []byte) ([]byte, error)

// Invocation is one invocation that reached a function, once it returned.
type Invocation struct {
	Function       string
	InvocationType string // RequestResponse or Event
	Payload        []byte
	Output         []byte
	Err            error
}

// Server is a running fake Lambda API. Its methods are safe for concurrent
// use.
type Server struct {
	// URL is the endpoint, e.g. for AWS_ENDPOINT_URL_LAMBDA.
	URL  string
	http *http.Server
	done chan struct{}

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	calls  chan Invocation

	mu    sync.Mutex
	fns   map[string]Handler
	fails map[string][]apiError
}

type apiError struct {
	status int
	code   string
}

// Start serves fns, by function name, on 127.0.0.1 at a free port.
// Completed invocations are reported on Invocations, which holds up to
// 1,000 of them unread; past that they are not reported.
func Start(fns map[string]Handler) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakelambda: listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), done: make(chan struct{}),
		calls: make(chan Invocation, 1000), fns: map[string]Handler{}, fails: map[string][]apiError{}}
	for name, h := range fns {
		s.fns[name] = h
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.HandleFunc("POST /2015-03-31/functions/{name}/invocations", s.invoke)
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.http.Serve(ln) // http.ErrServerClosed after Close
	}()
	return s, nil
}

// Invocations reports each invocation once its function returned.
func (s *Server) Invocations() <-chan Invocation { return s.calls }

// FailNext makes the next n invocations of the function answer with an
// API error instead of running it, e.g. 429 "TooManyRequestsException".
func (s *Server) FailNext(function string, n, status int, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.fails[function] = append(s.fails[function], apiError{status, code})
	}
}

// Close stops the server, cancels the functions still running and waits
// for them.
func (s *Server) Close() {
	_ = s.http.Close()
	<-s.done
	s.cancel()
	s.wg.Wait()
}

func (s *Server) invoke(w http.ResponseWriter, r *http.Request) {
	name := functionName(r.PathValue("name"))
	w.Header().Set("X-Amzn-RequestId", fmt.Sprintf("fake-%d", time.Now().UnixNano()))
	s.mu.Lock()
	h, ok := s.fns[name]
	var fail *apiError
	if f := s.fails[name]; len(f) > 0 {
		fail, s.fails[name] = &f[0], f[1:]
	}
	s.mu.Unlock()
	switch {
	case fail != nil:
		writeError(w, fail.status, fail.code, "Injected by fakelambda.FailNext.")
		return
	case !ok:
		writeError(w, http.StatusNotFound, "ResourceNotFoundException", "Function not found: arn:aws:lambda:us-east-1:123456789012:function:"+name)
		return
	}
	payload, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "InvalidRequestContentException", "Could not read the request body.")
		return
	}
	typ := r.Header.Get("X-Amz-Invocation-Type")
	switch typ {
	case "", "RequestResponse":
		typ = "RequestResponse"
	case "Event":
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.run(s.ctx, name, typ, h, payload)
		}()
		w.WriteHeader(http.StatusAccepted)
		return
	default:
		writeError(w, http.StatusBadRequest, "InvalidParameterValueException", "Unsupported invocation type "+typ)
		return
	}
	out, err := s.run(r.Context(), name, typ, h, payload)
	w.Header().Set("X-Amz-Executed-Version", "$LATEST")
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		w.Header().Set("X-Amz-Function-Error", "Unhandled")
		out, _ = json.Marshal(map[string]string{"errorMessage": err.Error(), "errorType": typeName(err)})
	}
	_, _ = w.Write(out)
}

func (s *Server) run(ctx context.Context, name, typ string, h Handler, payload []byte) ([]byte, error) {
	out, err := h(ctx, payload)
	select {
	case s.calls <- Invocation{Function: name, InvocationType: typ, Payload: payload, Output: out, Err: err}:
	default:
	}
	return out, err
}

// typeName names a function error as aws-lambda-go does: the name of its
// Go type, through one pointer.
func typeName(err error) string {
	t := reflect.TypeOf(err)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// functionName is the name in a function name, name:qualifier, partial
// ARN or ARN.
func functionName(s string) string {
	parts := strings.Split(s, ":")
	switch {
	case parts[0] == "arn" && len(parts) >= 7:
		return parts[6]
	case len(parts) >= 3 && parts[1] == "function":
		return parts[2]
	}
	return parts[0]
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("X-Amzn-ErrorType", code)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"Type": "User", "Message": msg})
}
