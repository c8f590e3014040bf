package fakeslack

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sfnapprovals/approvals/internal/loopback"
)

// ErrClosed is returned by waits that end because the server was closed.
var ErrClosed = errors.New("fakeslack: server closed")

// Options configures a fake Slack. The zero value is usable; see each field for its default.
type Options struct {
	// BotToken and AppToken are the only tokens the fake accepts.
	// Defaults "xoxb-fake-" and "xapp-fake-" followed by 128 random bits,
	// new for each server, so that nothing else on the machine can guess
	// them.
	BotToken, AppToken string
	// BotUserID, BotID, TeamID and AppID identify the bot and its workspace.
	// Defaults "UBOT", "BBOT", "T0FAKE", "A0FAKE".
	BotUserID, BotID, TeamID, AppID string
	// PingInterval is how often the server PINGs each socket. Default 5s.
	PingInterval time.Duration
	// AckTimeout is how long an envelope may stay unacked. Default 3s.
	AckTimeout time.Duration
	// TriggerTTL is how long a trigger_id can open a view. Default 3s.
	TriggerTTL time.Duration
	// MaxConnections is the number of live sockets allowed. Default 10.
	MaxConnections int
	// Now is the clock for trigger and response URL expiry and message timestamps.
	// Ack deadlines, pings and rate-limit windows always use real time. Default time.Now.
	Now func() time.Time
	// Groups maps a usergroup ID to its member user IDs.
	Groups map[string][]string
	// Users are the profiles users.info answers with; other user IDs get a default one.
	Users []User
	// RateLimits limits Web API methods by name, e.g. "chat.update".
	RateLimits map[string]RateLimit
	// Faults, when set, is asked about every Web API call before the fake
	// answers it, with the call's parameters (without the token; nil when
	// unreadable), and may fail the call (see Fault); the zero Fault lets
	// it through. It is called concurrently. Failures injected with
	// FailMethod come first, and rate limits after.
	Faults func(method string, params url.Values) Fault
	// EventRetries are the pauses before each redelivery of an events_api
	// envelope that missed its ack deadline, one per retry. Default Slack's
	// schedule: at once, then after 1 minute, then after 5 minutes.
	// Interactive and slash command envelopes are never redelivered.
	EventRetries []time.Duration
	// Listener, when set, is where the fake serves, and its address is in
	// every URL the fake hands out (a fixed one keeps message links valid
	// across restarts); Close closes it. Default a free port on 127.0.0.1.
	Listener net.Listener
}

func (o Options) withDefaults() Options {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&o.BotToken, "xoxb-fake-"+unguessable())
	def(&o.AppToken, "xapp-fake-"+unguessable())
	def(&o.BotUserID, "UBOT")
	def(&o.BotID, "BBOT")
	def(&o.TeamID, "T0FAKE")
	def(&o.AppID, "A0FAKE")
	if o.PingInterval <= 0 {
		o.PingInterval = 5 * time.Second
	}
	if o.AckTimeout <= 0 {
		o.AckTimeout = 3 * time.Second
	}
	if o.TriggerTTL <= 0 {
		o.TriggerTTL = 3 * time.Second
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = 10
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.EventRetries == nil {
		o.EventRetries = SlackEventRetries
	}
	return o
}

// Server is a running fake Slack. All methods are safe for concurrent use.
type Server struct {
	opts     Options
	base     string
	ln       net.Listener
	http     *http.Server
	upgrader websocket.Upgrader
	served   chan struct{}
	done     chan struct{}
	wg       sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	changed chan struct{}
	seq     int
	revoked map[string]bool // bot tokens RotateBotToken replaced

	api    apiState
	chat   chatState
	views  viewState
	socket socketState
}

// Start listens on Options.Listener, or on 127.0.0.1 on a free port, and
// serves until Close.
func Start(opts Options) (*Server, error) {
	ln := opts.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return nil, fmt.Errorf("fakeslack: listen: %w", err)
		}
	}
	s := &Server{
		opts:    opts.withDefaults(),
		base:    "http://" + ln.Addr().String(),
		ln:      ln,
		served:  make(chan struct{}),
		done:    make(chan struct{}),
		changed: make(chan struct{}),
		upgrader: websocket.Upgrader{
			// guard has checked the Origin already.
			CheckOrigin: func(*http.Request) bool { return true },
		},
	}
	s.api.init(s.opts.Groups, s.opts.Users)
	s.chat.init()
	s.views.init()
	s.socket.init()
	s.http = &http.Server{Handler: guard(s.routes(), loopback.Listener(ln)), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.served)
		_ = s.http.Serve(ln)
	}()
	return s, nil
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/{method}", s.handleAPI)
	mux.HandleFunc("GET /api/{method}", s.handleAPI) // slack-go GETs chat.getPermalink
	mux.HandleFunc("GET /link/", s.handleLink)
	mux.HandleFunc("POST /response/{n}", s.handleResponseURL)
	return mux
}

// slackGoOrigin is the Origin slack-go sends when it opens a Socket Mode
// connection; programs send none on Web API calls.
const slackGoOrigin = "https://api.slack.com"

// guard keeps the fake to the programs on this machine, as Slack's own
// servers are out of reach of a web page: a page open in this machine's
// browser must not be able to call its Web API, open a Socket Mode
// connection or answer a response URL. It refuses (403) a request a
// browser sent (Sec-Fetch-* headers, which browsers add to every request
// and programs do not), one with an Origin other than slack-go's, and,
// when the fake listens on a loopback address, one whose Host is not a
// loopback name (DNS rebinding).
func guard(next http.Handler, loopbackOnly bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch origin := r.Header.Get("Origin"); {
		case loopbackOnly && !loopback.Host(r.Host):
			http.Error(w, "the fake Slack answers only requests for 127.0.0.1, [::1] or localhost", http.StatusForbidden)
		case r.Header.Get("Sec-Fetch-Site") != "" || r.Header.Get("Sec-Fetch-Mode") != "":
			http.Error(w, "the fake Slack answers programs, not web pages", http.StatusForbidden)
		case origin != "" && origin != slackGoOrigin:
			http.Error(w, "the fake Slack refuses requests from "+origin, http.StatusForbidden)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// unguessable is at least 128 bits from crypto/rand, as text, for tokens
// and tickets.
func unguessable() string { return strings.ToLower(rand.Text()) }

// Close stops the server: it closes every socket, stops pending ack timers and waits for every
// goroutine the fake started. Waits in progress return ErrClosed.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.done)
	conns := s.socket.liveLocked()
	s.stopTimersLocked()
	s.mu.Unlock()

	_ = s.http.Close()
	<-s.served
	for _, c := range conns {
		c.close()
	}
	s.wg.Wait()
}

// APIURL is the Web API base URL with its trailing slash, for slack.OptionAPIURL.
func (s *Server) APIURL() string { return s.base + "/api/" }

// URL is the workspace URL auth.test reports, with its trailing slash, as Slack's
// "https://acme.slack.com/". Message links start with it.
func (s *Server) URL() string { return s.base + "/" }

// BotUserID is the bot's user ID: the author of the messages the app posts.
func (s *Server) BotUserID() string { return s.opts.BotUserID }

// BotToken is the xoxb token the fake accepts.
func (s *Server) BotToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts.BotToken
}

// RotateBotToken makes next the bot token the fake accepts, as when the
// app's token is revoked and a new one issued: from then on the old token
// is answered with token_revoked.
func (s *Server) RotateBotToken(next string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.revoked == nil {
		s.revoked = map[string]bool{}
	}
	s.revoked[s.opts.BotToken] = true
	delete(s.revoked, next)
	s.opts.BotToken = next
}

// AppToken is the xapp token the fake accepts for apps.connections.open.
func (s *Server) AppToken() string { return s.opts.AppToken }

// Changed returns a channel that is closed at the next state change (a call, a message, a
// connection, an ack, a failure). Take it before checking state so no change is missed.
func (s *Server) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// WaitFor calls cond now and after every state change until it returns true. It returns ctx.Err()
// when ctx ends first, or ErrClosed. cond may call the Server's methods.
func (s *Server) WaitFor(ctx context.Context, cond func() bool) error {
	for {
		ch := s.Changed()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.done:
			return ErrClosed
		}
	}
}

func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// nextIDLocked returns a fresh identifier such as "V000007", unique across the server.
func (s *Server) nextIDLocked(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s%06d", prefix, s.seq)
}
