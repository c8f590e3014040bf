package approvalsbot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// opsRoutes is every entry point of the operations server:
//
//	GET /healthz  200 "ok": the process is alive
//	GET /readyz   200 "ready", or 503 "not ready: <why>" (ready reports why)
//	GET /metrics  Prometheus text format (metrics.Registry)
func opsRoutes(ready func() error, metrics http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if err := ready(); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "not ready: "+err.Error()+"\n")
			return
		}
		_, _ = io.WriteString(w, "ready\n")
	})
	mux.Handle("GET /metrics", metrics)
	return mux
}

// opsServer serves opsRoutes on its own listener.
type opsServer struct {
	srv  *http.Server
	done chan error
	addr net.Addr
}

// startOps listens on addr now (so a taken port fails the start) and serves
// in the background until stop.
func startOps(addr string, h http.Handler, logger *zap.Logger) (*opsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on APPROVALS_HTTP_ADDR %s: %w", addr, err)
	}
	return serveOps(ln, h, logger), nil
}

// serveOps serves h on ln in the background until stop.
func serveOps(ln net.Listener, h http.Handler, logger *zap.Logger) *opsServer {
	s := &opsServer{
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 5 * time.Second,
			ReadTimeout:       10 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       time.Minute,
			ErrorLog:          zap.NewStdLog(logger.Named("http")),
		},
		done: make(chan error, 1),
		addr: ln.Addr(),
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	logger.Info("http server listening", zap.String("addr", s.addr.String()))
	return s
}

// stop lets requests in progress finish for up to timeout, then closes the
// server.
func (s *opsServer) stop(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}
