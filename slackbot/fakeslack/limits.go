package fakeslack

import (
	"math"
	"net/url"
	"slices"
	"time"
)

// RateLimit allows Burst calls of a method per fixed window of length Per. A call over the limit
// gets HTTP 429 with Retry-After (whole seconds until the window ends, at least 1) and the body
// {"ok":false,"error":"ratelimited"}, which slack-go turns into *slack.RateLimitedError.
type RateLimit struct {
	Burst int
	Per   time.Duration
}

type window struct {
	start time.Time
	calls int
}

type fault struct {
	remaining int // <0: until Heal
	status    int
	applied   bool // the call takes effect before it fails
}

type apiState struct {
	calls    map[string]int
	params   map[string][]url.Values
	refusing map[string]string // channel -> error code of chat.postMessage and chat.update there
	windows  map[string]*window
	faults   map[string]*fault
	groups   map[string][]string
	users    map[string]User
}

func (a *apiState) init(groups map[string][]string, users []User) {
	a.groups = map[string][]string{}
	for id, members := range groups {
		a.groups[id] = slices.Clone(members)
	}
	a.users = map[string]User{}
	for _, u := range users {
		a.users[u.ID] = u
	}
	a.calls = map[string]int{}
	a.params = map[string][]url.Values{}
	a.windows = map[string]*window{}
	a.faults = map[string]*fault{}
	a.refusing = map[string]string{}
}

// RefuseChannel makes chat.postMessage and chat.update in channel answer Slack's error code (such
// as "not_in_channel" after the app was removed from it) until RefuseChannel(channel, "").
func (s *Server) RefuseChannel(channel, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code == "" {
		delete(s.api.refusing, channel)
		return
	}
	s.api.refusing[channel] = code
}

// refusedLocked is the error a channel answers chat calls with, if any.
func (s *Server) refusedLocked(channel string) *apiError {
	if code, ok := s.api.refusing[channel]; ok {
		return errCode(code)
	}
	return nil
}

// FailMethod makes the next n calls of a Web API method (e.g. "chat.update") fail with the HTTP
// status (e.g. 500 or 503) and a non-JSON body, as Slack does in an outage; n < 0 fails every call
// until Heal. "apps.connections.open" may be failed too.
func (s *Server) FailMethod(method string, n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n == 0 {
		delete(s.api.faults, method)
		return
	}
	s.api.faults[method] = &fault{remaining: n, status: status}
}

// FailMethodAfterApplying makes the next n calls of a Web API method take effect (a message is
// posted and shown, an update made) and then answer the caller with the HTTP status and a non-JSON
// body, as when Slack's answer is lost: the caller sees a failure for something that happened.
func (s *Server) FailMethodAfterApplying(method string, n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n == 0 {
		delete(s.api.faults, method)
		return
	}
	s.api.faults[method] = &fault{remaining: n, status: status, applied: true}
}

// Heal ends a failure injected with FailMethod or FailMethodAfterApplying.
func (s *Server) Heal(method string) {
	s.FailMethod(method, 0, 0)
}

// Calls reports how many calls of a Web API method reached the fake, including the ones it
// rejected (bad auth, rate limit, injected failure, invalid arguments).
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.api.calls[method]
}

// Params returns the parameters of every readable call of a Web API method, in arrival order,
// without the token: form fields, or the top-level members of a JSON body (non-string values as
// JSON text).
func (s *Server) Params(method string) []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]url.Values, 0, len(s.api.params[method]))
	for _, p := range s.api.params[method] {
		out = append(out, withoutToken(p))
	}
	return out
}

// injectedFailureLocked consumes one injected failure of method, if any, and returns its status
// and whether the call takes effect first.
func (s *Server) injectedFailureLocked(method string) (status int, applied, failed bool) {
	f, ok := s.api.faults[method]
	if !ok {
		return 0, false, false
	}
	if f.remaining > 0 {
		f.remaining--
		if f.remaining == 0 {
			delete(s.api.faults, method)
		}
	}
	return f.status, f.applied, true
}

// rateLimitedLocked counts the call against its method's window and reports how long the caller
// must wait when it is over the limit.
func (s *Server) rateLimitedLocked(method string, now time.Time) (retryAfter int, limited bool) {
	rl, ok := s.opts.RateLimits[method]
	if !ok || rl.Burst <= 0 || rl.Per <= 0 {
		return 0, false
	}
	w := s.api.windows[method]
	if w == nil || now.Sub(w.start) >= rl.Per {
		w = &window{start: now}
		s.api.windows[method] = w
	}
	if w.calls < rl.Burst {
		w.calls++
		return 0, false
	}
	wait := w.start.Add(rl.Per).Sub(now)
	return max(1, int(math.Ceil(wait.Seconds()))), true
}
