package localui

import (
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/loopback"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// Options configure the page.
type Options struct {
	// Slack is the fake Slack the page shows and acts on. Required.
	Slack *fakeslack.Server
	// Executions feeds the executions panel; nil leaves the panel out.
	Executions Executions
	// People is the workspace; the zero value takes DefaultWorkspace. New gives its people and
	// groups to Slack (SetUser, SetGroup), so the app sees the same groups the page shows.
	People Workspace
	// Commands are the slash commands the app has; others are refused as Slack refuses them.
	// Default ["/approvals"].
	Commands []string
	// AppName is the name the app's messages show. Default "approvals".
	AppName string
	// ActionTimeout bounds how long a click, submission or command waits for the app's ack
	// (the fake's own ack deadline applies first). Default 10s.
	ActionTimeout time.Duration
	// RefreshInterval is how often an open page's executions panel is refreshed. Default 1s.
	RefreshInterval time.Duration
	// Logger receives the failures the page cannot show to anyone. Default none.
	Logger *zap.Logger
}

// Handler serves the page. It is an http.Handler; Close ends its event streams.
type Handler struct {
	opts    Options
	slack   *fakeslack.Server
	ws      Workspace
	handler http.Handler
	pages   *template.Template
	log     *zap.Logger

	done       chan struct{}
	closeOnce  sync.Once
	streams    sync.WaitGroup
	panelCache panelCache
}

//go:embed static templates
var assets embed.FS

// New returns the page's handler. It panics without Options.Slack.
func New(opts Options) *Handler {
	if opts.Slack == nil {
		panic("localui: Options.Slack is required")
	}
	if len(opts.People.People) == 0 {
		opts.People = DefaultWorkspace()
	}
	if len(opts.Commands) == 0 {
		opts.Commands = []string{"/approvals"}
	}
	if opts.AppName == "" {
		opts.AppName = "approvals"
	}
	if opts.ActionTimeout <= 0 {
		opts.ActionTimeout = 10 * time.Second
	}
	if opts.RefreshInterval <= 0 {
		opts.RefreshInterval = time.Second
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	opts.People.apply(opts.Slack)
	h := &Handler{
		opts:  opts,
		slack: opts.Slack,
		ws:    opts.People,
		pages: template.Must(template.New("").Funcs(templateFuncs).ParseFS(assets, "templates/*.html")),
		log:   opts.Logger,
		done:  make(chan struct{}),
	}
	h.handler = guard(h.routes())
	return h
}

func (h *Handler) routes() http.Handler {
	static, _ := fs.Sub(assets, "static")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.page)
	mux.HandleFunc("GET /events", h.events)
	mux.HandleFunc("GET /execution", h.execution)
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("POST /click", h.click)
	mux.HandleFunc("POST /home", h.openHome)
	mux.HandleFunc("POST /submit", h.submit)
	mux.HandleFunc("POST /close", h.closeView)
	mux.HandleFunc("POST /message", h.message)
	mux.HandleFunc("POST /start", h.start)
	mux.HandleFunc("POST /stop", h.stop)
	return mux
}

// ServeHTTP serves the page and its API (see the package doc).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.handler.ServeHTTP(w, r) }

// Close ends the open event streams and waits for them, so a server's Shutdown need not wait
// for the browsers to leave: call it first, or register it with http.Server.RegisterOnShutdown.
// Requests after Close get no stream.
func (h *Handler) Close() {
	h.closeOnce.Do(func() { close(h.done) })
	h.streams.Wait()
}

// guard refuses requests for other hosts than loopback names (DNS rebinding) and cross-origin
// requests that change state, and sets the headers that keep the page to itself.
func guard(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusForbidden, errors.New("cross-origin request refused"))
	}))
	protected := cop.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopback.Host(r.Host) {
			http.Error(w, "this page answers only on 127.0.0.1, [::1] or localhost", http.StatusForbidden)
			return
		}
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-store")
		protected.ServeHTTP(w, r)
	})
}
