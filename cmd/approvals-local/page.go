package main

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/localui"
	"github.com/sfnapprovals/approvals/internal/localui/sfnexec"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// page is the Slack stand-in's web page served on -addr. Close ends what
// it keeps open (event streams) before the server shuts down.
type page interface {
	http.Handler
	Close()
}

// pageParts are what the page shows and acts on.
type pageParts struct {
	Slack  *fakeslack.Server
	SFN    *sfn.Client
	Logger *zap.Logger
}

// newPage builds the Slack stand-in's page (internal/localui) with its
// executions panel on the engine's API, for the default workspace.
func newPage(p pageParts) page {
	return localui.New(localui.Options{Slack: p.Slack, Executions: sfnexec.New(p.SFN, nil), Logger: p.Logger})
}

// pageServer serves the page on its listener.
type pageServer struct {
	srv    *http.Server
	page   page
	failed chan struct{} // closed when Serve returns
	addr   net.Addr
}

func servePage(ln net.Listener, p page, log *zap.Logger) *pageServer {
	s := &pageServer{
		srv: &http.Server{
			Handler:           p,
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       2 * time.Minute,
			ErrorLog:          zap.NewStdLog(log),
		},
		page:   p,
		failed: make(chan struct{}),
		addr:   ln.Addr(),
	}
	go func() {
		defer close(s.failed)
		_ = s.srv.Serve(ln)
	}()
	return s
}

// stop ends the page's streams and lets requests in flight finish for a
// moment.
func (s *pageServer) stop() {
	s.page.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		_ = s.srv.Close()
	}
	<-s.failed
}
