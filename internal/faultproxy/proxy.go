// Package faultproxy is an HTTP proxy in front of an AWS JSON 1.0 service
// (DynamoDB Local, a Step Functions API) that fails chosen requests the way
// the AWS service does: the status code and the JSON body with "__type" the
// service sends, so the AWS SDK's retryer treats them as it does in
// production (a throttle is retried with backoff, a 5xx too, and the last
// one reaches the caller as the service's error type). A request it fails
// is not forwarded, so it is not applied; a lost answer is forwarded,
// applied, and its answer dropped with the connection.
//
// It records every fault it injects, with what the request was about
// (Options.Subjects), never the request itself: bodies hold task tokens.
package faultproxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kind is what the proxy does to one request.
type Kind int

// The kinds of fault.
const (
	// Pass forwards the request and its answer.
	Pass Kind = iota
	// Throttle answers the service's throttling error without forwarding.
	Throttle
	// ServerError answers one of the service's 5xx errors without
	// forwarding.
	ServerError
	// LostAnswer forwards the request (it is applied) and closes the
	// connection instead of answering, as when a network drops the answer.
	LostAnswer
)

func (k Kind) String() string {
	switch k {
	case Throttle:
		return "throttle"
	case ServerError:
		return "5xx"
	case LostAnswer:
		return "lost answer"
	}
	return "pass"
}

// ErrorShape is an error answer of an AWS JSON 1.0 service.
type ErrorShape struct {
	Status  int
	Type    string // the body's "__type", as the service spells it
	Message string
}

// Service is how a service answers the faults the proxy injects.
type Service struct {
	// Name is the service's name in records and errors.
	Name string
	// Throttle is the throttling answer.
	Throttle ErrorShape
	// ServerErrors are the 5xx answers; each injected 5xx is one of them in
	// turn.
	ServerErrors []ErrorShape
}

// DynamoDB answers as DynamoDB does: ProvisionedThroughputExceededException
// (400) for a throttled request, InternalServerError (500) for a server
// error, with the service's namespaced "__type" (see the DynamoDB developer
// guide, "Error handling with DynamoDB").
var DynamoDB = Service{
	Name: "dynamodb",
	Throttle: ErrorShape{http.StatusBadRequest, "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
		"The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."},
	ServerErrors: []ErrorShape{{http.StatusInternalServerError, "com.amazonaws.dynamodb.v20120810#InternalServerError", "Internal server error"}},
}

// StepFunctions answers as the Step Functions API does: ThrottlingException
// (400, "Rate exceeded") for a throttled request, InternalFailure (500) and
// ServiceUnavailable (503), the common errors of every AWS API, for server
// errors.
var StepFunctions = Service{
	Name:     "states",
	Throttle: ErrorShape{http.StatusBadRequest, "ThrottlingException", "Rate exceeded"},
	ServerErrors: []ErrorShape{
		{http.StatusInternalServerError, "InternalFailure", "The request processing has failed because of an unknown error, exception or failure."},
		{http.StatusServiceUnavailable, "ServiceUnavailable", "The request has failed due to a temporary failure of the server."},
	},
}

// Options configure a Proxy.
type Options struct {
	// Target is the service's endpoint, such as http://127.0.0.1:8000.
	Target string
	// Service is how faults are answered.
	Service Service
	// Decide picks what happens to a request for operation op (the part of
	// X-Amz-Target after the dot, such as "PutItem"). Nil passes every
	// request. It is called concurrently.
	Decide func(op string) Kind
	// Subjects names what a request is about, for the record of faults
	// (approval IDs, say); it must never return secrets. Nil records none.
	Subjects func(body []byte) []string
	// Before, when set, sees every request before it is decided and
	// forwarded, and may hold it there, as a slow service does, until ctx
	// (done when the client goes away) ends; a request whose client went
	// away is dropped unapplied. It is called concurrently.
	Before func(ctx context.Context, op string, body []byte)
}

// Record is one injected fault.
type Record struct {
	At       time.Time
	Service  string
	Op       string
	Kind     Kind
	Subjects []string
}

// Proxy is a running proxy. Its methods are safe for concurrent use.
type Proxy struct {
	opts      Options
	target    string
	ln        net.Listener
	srv       *http.Server
	transport *http.Transport
	served    chan struct{}

	mu      sync.Mutex
	records []Record
	next5xx int
}

// maxBody bounds a request body; DynamoDB's largest request is well below.
const maxBody = 16 << 20

// Start listens on a free port of 127.0.0.1 and proxies to opts.Target
// until Close.
func Start(opts Options) (*Proxy, error) {
	if opts.Target == "" || (!strings.HasPrefix(opts.Target, "http://") && !strings.HasPrefix(opts.Target, "https://")) {
		return nil, fmt.Errorf("faultproxy: target %q is not an http(s) URL", opts.Target)
	}
	if opts.Service.Name == "" || len(opts.Service.ServerErrors) == 0 {
		return nil, errors.New("faultproxy: the service's name and server errors are required")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	p := &Proxy{
		opts:      opts,
		target:    strings.TrimSuffix(opts.Target, "/"),
		ln:        ln,
		served:    make(chan struct{}),
		transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second},
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(p.served)
		_ = p.srv.Serve(ln)
	}()
	return p, nil
}

// URL is the proxy's endpoint, to give the SDK instead of the target's.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Close stops the proxy and closes its connections.
func (p *Proxy) Close() {
	_ = p.srv.Close()
	<-p.served
	p.transport.CloseIdleConnections()
}

// Records returns the faults injected so far, in order.
func (p *Proxy) Records() []Record {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.records)
}

// Count counts the faults of kind injected so far.
func (p *Proxy) Count(kind Kind) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, r := range p.records {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

// ServeHTTP answers one request: a fault, or the target's answer.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		http.Error(w, "faultproxy: could not read the request", http.StatusBadRequest)
		return
	}
	op := r.Header.Get("X-Amz-Target")
	op = op[strings.LastIndex(op, ".")+1:]
	if p.opts.Before != nil {
		p.opts.Before(r.Context(), op, body)
		if r.Context().Err() != nil {
			return // the client went away: nothing forwarded
		}
	}
	kind := Pass
	if p.opts.Decide != nil && op != "" {
		kind = p.opts.Decide(op)
	}
	if kind != Pass {
		p.record(op, kind, body)
	}
	switch kind {
	case Throttle:
		writeError(w, p.opts.Service.Throttle)
	case ServerError:
		writeError(w, p.serverError())
	case LostAnswer:
		if resp, err := p.forward(r, body); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		drop(w)
	default:
		resp, err := p.forward(r, body)
		if err != nil {
			drop(w) // the target is unreachable: the SDK sees a broken connection
			return
		}
		defer resp.Body.Close()
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}
}

func (p *Proxy) record(op string, kind Kind, body []byte) {
	rec := Record{At: time.Now(), Service: p.opts.Service.Name, Op: op, Kind: kind}
	if p.opts.Subjects != nil {
		rec.Subjects = p.opts.Subjects(body)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.records = append(p.records, rec)
}

// serverError returns the service's 5xx answers in turn.
func (p *Proxy) serverError() ErrorShape {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.opts.Service.ServerErrors[p.next5xx%len(p.opts.Service.ServerErrors)]
	p.next5xx++
	return e
}

// forward sends the request on to the target as it came, and returns the
// target's answer.
func (p *Proxy) forward(r *http.Request, body []byte) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(r.Context(), time.Minute)
	out, err := http.NewRequestWithContext(ctx, r.Method, p.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		cancel()
		return nil, err
	}
	for k, vs := range r.Header {
		out.Header[k] = slices.Clone(vs)
	}
	out.Host = r.Host
	out.ContentLength = int64(len(body))
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = cancelOnClose{resp.Body, cancel}
	return resp, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// writeError answers e as an AWS JSON 1.0 service does.
func writeError(w http.ResponseWriter, e ErrorShape) {
	body, _ := json.Marshal(map[string]string{"__type": e.Type, "message": e.Message})
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amzn-Requestid", requestID())
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.Status)
	_, _ = w.Write(body)
}

// drop closes the connection without an answer.
func drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // net/http closes the connection quietly
	}
	_ = conn.Close()
}

func requestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return strings.ToUpper(hex.EncodeToString(b))
}
