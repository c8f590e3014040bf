package main

import (
	"context"
	"html/template"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/sfnhost"
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

// newPage builds the page. internal/localui is the real one; until it is
// merged, a placeholder lists the channel's messages. At the merge:
//
//	h := localui.New(localui.Options{Slack: p.Slack, Executions: sfnexec.New(p.SFN, nil), Logger: p.Logger})
//	return h
var newPage = func(p pageParts) page { return placeholderPage{slack: p.Slack} }

// placeholderPage stands for internal/localui's page until it is merged:
// the messages of the stand-in's channel, as text.
type placeholderPage struct{ slack *fakeslack.Server }

var placeholderTemplate = template.Must(template.New("").Parse(`<!doctype html>
<meta charset="utf-8"><title>approvals-local</title>
<h1>Slack stand-in</h1>
<p>The stand-in's page (internal/localui) is not part of this build. Messages in {{.Channel}}:</p>
<ul>{{range .Messages}}<li>{{.Text}}{{if .Buttons}} — buttons: {{range .Buttons}}[{{.Text}}] {{end}}{{end}}</li>{{end}}</ul>
`))

func (h placeholderPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !sfnhost.LoopbackHost(r.Host) {
		http.Error(w, "this page answers only on 127.0.0.1, [::1] or localhost", http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet || r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	type message struct {
		Text    string
		Buttons []fakeslack.ButtonRef
	}
	var msgs []message
	for _, m := range h.slack.Messages(standInChannel) {
		msgs = append(msgs, message{Text: m.Text, Buttons: fakeslack.ButtonActions(m.Blocks)})
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = placeholderTemplate.Execute(w, map[string]any{"Channel": standInChannel, "Messages": msgs})
}

func (placeholderPage) Close() {}

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
