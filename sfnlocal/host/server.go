// Package host serves the local Step Functions engine (package sfnlocal)
// the way cmd/sfn-local and cmd/approvals-local do: its API on a listener,
// answering only loopback Host names when it listens on a loopback
// address, with read and idle timeouts; and state machines made from a
// folder of *.asl.json definition files, their ${Name} placeholders filled
// as CloudFormation's DefinitionSubstitutions fill them, kept in step with
// the files while they change (Watcher).
package host

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/loopback"
	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/sfnapi"
)

// maxHeaderTimeout bounds how long a request's headers may take to arrive.
const maxHeaderTimeout = 10 * time.Second

// ServerOptions configure Serve.
type ServerOptions struct {
	// ReadTimeout bounds how long a request may take to arrive, headers
	// and body (default 30 s); no timeout applies to the operation or its
	// response, which is written whole however long a slow client takes
	// to read it. IdleTimeout is how long a keep-alive connection may wait
	// for the next request (default 2 min; keep it longer than a client
	// takes to read a large history page, or the connection may close just
	// as the client reuses it).
	ReadTimeout, IdleTimeout time.Duration
	// Logger gets the API's log lines (default none).
	Logger *zap.Logger
}

// Server serves an engine's API.
type Server struct {
	srv    *http.Server
	addr   net.Addr
	served chan struct{}
	err    error // why Serve returned; read after served is closed
}

// Serve serves engine's Step Functions API (AWS JSON 1.0) on ln in the
// background until Shutdown. On a loopback listener it refuses requests
// whose Host is not a loopback name (LoopbackHostsOnly).
func Serve(ln net.Listener, engine *sfnlocal.Engine, opts ServerOptions) *Server {
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = 30 * time.Second
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 2 * time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	var handler http.Handler = sfnapi.NewHandler(engine, sfnapi.WithLogger(opts.Logger))
	if loopback.Listener(ln) {
		handler = LoopbackHostsOnly(handler, opts.Logger)
	}
	s := &Server{
		srv: &http.Server{
			Handler:           handler,
			ReadHeaderTimeout: min(opts.ReadTimeout, maxHeaderTimeout),
			ReadTimeout:       opts.ReadTimeout,
			IdleTimeout:       opts.IdleTimeout,
			ErrorLog:          zap.NewStdLog(opts.Logger),
		},
		addr:   ln.Addr(),
		served: make(chan struct{}),
	}
	go func() {
		defer close(s.served)
		s.err = s.srv.Serve(ln)
	}()
	return s
}

// Addr is the address the API listens on.
func (s *Server) Addr() net.Addr { return s.addr }

// URL is the API's endpoint, http://host:port.
func (s *Server) URL() string { return "http://" + s.addr.String() }

// Failed is closed when the server stopped serving by itself; Err then
// says why.
func (s *Server) Failed() <-chan struct{} { return s.served }

// Err is why the server stopped serving, once Failed is closed.
func (s *Server) Err() error {
	select {
	case <-s.served:
		if errors.Is(s.err, http.ErrServerClosed) {
			return nil
		}
		return s.err
	default:
		return nil
	}
}

// Shutdown stops accepting requests and lets those in flight finish until
// ctx ends, then closes their connections. It returns ctx's error if some
// had to be cut off.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	<-s.served
	return err
}
