package s3local

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// Options configure Start.
type Options struct {
	// Dir holds the buckets, one folder each; it is created if missing.
	Dir string
	// Listener is where to serve; it must be on a loopback address. Nil
	// means a free port on 127.0.0.1.
	Listener net.Listener
	// Logger gets the server's log lines (default none).
	Logger *zap.Logger
}

// Server is a running local S3.
type Server struct {
	srv    *http.Server
	ln     net.Listener
	served chan struct{}
	err    error // why Serve returned; read after served is closed
}

// Start serves the folder opts.Dir as S3 until Close. A listener on
// another than a loopback address is refused, and closed.
func Start(opts Options) (*Server, error) {
	ln := opts.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return nil, fmt.Errorf("s3local: listen: %w", err)
		}
	}
	if a, ok := ln.Addr().(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
		ln.Close()
		return nil, fmt.Errorf("s3local: %s is not a loopback address: the local S3 serves this machine only", ln.Addr())
	}
	if opts.Dir == "" {
		ln.Close()
		return nil, errors.New("s3local: Options.Dir names no folder")
	}
	st, err := newStore(opts.Dir)
	if err != nil {
		ln.Close()
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	s := &Server{
		ln:     ln,
		served: make(chan struct{}),
		srv: &http.Server{
			Handler:           &handler{store: st, log: log},
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       2 * time.Minute,
		},
	}
	go func() {
		defer close(s.served)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.err = err
			log.Error("local S3 stopped", zap.Error(err))
		}
	}()
	return s, nil
}

// URL is the endpoint to give clients (AWS_ENDPOINT_URL_S3), e.g.
// http://127.0.0.1:8084.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Failed is closed once the server stopped serving, on its own or by
// Close.
func (s *Server) Failed() <-chan struct{} { return s.served }

// Close stops the server, letting requests under way finish for up to
// three seconds.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.served
	return err
}
