package fakeslack

import (
	"net/url"
	"slices"
	"time"
)

// Fault is what Options.Faults does to one Web API call. The zero Fault lets the call through.
type Fault struct {
	// Status is the HTTP status of the failure: 429 answers Slack's rate limit (Retry-After and
	// {"ok":false,"error":"ratelimited"}), a 5xx status an outage (a non-JSON body, as Slack's
	// load balancers answer). 0 for no failure.
	Status int
	// RetryAfter is a 429's Retry-After in whole seconds (at least 1).
	RetryAfter int
	// Applied makes a 5xx call take effect before it fails, as when Slack's answer is lost. A
	// rate-limited call is never applied.
	Applied bool
}

type fault struct {
	remaining int // <0: until Heal
	status    int
	applied   bool // the call takes effect before it fails
}

type apiState struct {
	calls    map[string]int
	first    map[string]time.Time
	limited  map[string]int
	params   map[string][]url.Values
	refusing map[string]string      // channel -> error code of chat.postMessage and chat.update there
	limits   map[string]*limitState // by method, or method and channel
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
	a.first = map[string]time.Time{}
	a.limited = map[string]int{}
	a.params = map[string][]url.Values{}
	a.limits = map[string]*limitState{}
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

// FirstCall reports when the first call of a Web API method reached the fake (zero: none yet).
func (s *Server) FirstCall(method string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.api.first[method]
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
