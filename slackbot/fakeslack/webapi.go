package fakeslack

import (
	"encoding/json"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// apiRequest is a Web API call with its parameters, whether they came form-encoded or as JSON.
type apiRequest struct {
	params url.Values
	token  string
}

type apiHandler func(*apiRequest) (map[string]any, *apiError)

type apiMethod struct {
	appToken bool // authenticated with the xapp token instead of the xoxb token
	handle   apiHandler
}

func (s *Server) apiMethods() map[string]apiMethod {
	return map[string]apiMethod{
		"auth.test":             {handle: s.authTest},
		"apps.connections.open": {appToken: true, handle: s.connectionsOpen},
		"chat.postMessage":      {handle: s.chatPostMessage},
		"chat.update":           {handle: s.chatUpdate},
		"chat.postEphemeral":    {handle: s.chatPostEphemeral},
		"chat.getPermalink":     {handle: s.chatGetPermalink},
		"views.open":            {handle: s.viewsOpen},
		"views.update":          {handle: s.viewsUpdate},
		"views.publish":         {handle: s.viewsPublish},
		"conversations.open":    {handle: s.conversationsOpen},
		"usergroups.users.list": {handle: s.usergroupsUsersList},
		"users.info":            {handle: s.usersInfo},
	}
}

func (s *Server) handleAPI(w http.ResponseWriter, r *http.Request) {
	method := r.PathValue("method")
	req, err := readAPIRequest(r)

	s.mu.Lock()
	s.api.calls[method]++
	if _, ok := s.api.first[method]; !ok {
		s.api.first[method] = time.Now()
	}
	if err == nil {
		s.api.params[method] = append(s.api.params[method], withoutToken(req.params))
	}
	s.notifyLocked()
	status, applied, failed := s.injectedFailureLocked(method)
	var retryAfter int
	var limited bool
	if !failed && s.opts.Faults != nil {
		var params url.Values
		if req != nil {
			params = withoutToken(req.params)
		}
		s.mu.Unlock()
		f := s.opts.Faults(method, params)
		s.mu.Lock()
		switch {
		case f.Status == http.StatusTooManyRequests:
			retryAfter, limited = max(f.RetryAfter, 1), true
			s.api.limited[method]++
		case f.Status != 0:
			status, applied, failed = f.Status, f.Applied, true
		}
	}
	if !failed && !limited {
		var channel string
		if req != nil {
			channel = req.params.Get("channel")
		}
		retryAfter, limited = s.rateLimitedLocked(method, channel, time.Now())
	}
	s.mu.Unlock()

	fail := func() {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, "<html><body>fakeslack: injected failure</body></html>")
	}
	switch {
	case failed && applied:
		if m, ok := s.apiMethods()[method]; ok && err == nil && s.authenticate(req.token, m.appToken) == nil {
			_, _ = m.handle(req)
		}
		fail()
		return
	case failed:
		fail()
		return
	case limited:
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"ok": false, "error": "ratelimited"})
		return
	case err != nil:
		writeAPIError(w, errCode("invalid_form_data"))
		return
	}
	m, ok := s.apiMethods()[method]
	if !ok {
		writeAPIError(w, errCode("unknown_method"))
		return
	}
	if e := s.authenticate(req.token, m.appToken); e != nil {
		writeAPIError(w, e)
		return
	}
	resp, e := m.handle(req)
	if e != nil {
		writeAPIError(w, e)
		return
	}
	out := map[string]any{"ok": true}
	maps.Copy(out, resp)
	writeJSON(w, http.StatusOK, out)
}

// readAPIRequest accepts form-encoded bodies (slack-go's chat.*, users.*, usergroups.*, auth.test)
// and JSON bodies (views.*, apps.connections.open). Non-string JSON values become JSON strings, as
// they would be in a form. The token comes from the "token" parameter or a Bearer header.
func readAPIRequest(r *http.Request) (*apiRequest, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		return nil, err
	}
	req := &apiRequest{params: url.Values{}}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "application/json" {
		if len(strings.TrimSpace(string(body))) > 0 {
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(body, &fields); err != nil {
				return nil, err
			}
			for k, v := range fields {
				var str string
				if json.Unmarshal(v, &str) == nil {
					req.params.Set(k, str)
				} else {
					req.params.Set(k, string(v))
				}
			}
		}
	} else if req.params, err = url.ParseQuery(string(body)); err != nil {
		return nil, err
	}
	for k, v := range r.URL.Query() {
		if _, ok := req.params[k]; !ok {
			req.params[k] = v
		}
	}
	req.token = req.params.Get("token")
	if req.token == "" {
		if auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer"); ok {
			req.token = strings.TrimSpace(auth)
		}
	}
	return req, nil
}

func withoutToken(params url.Values) url.Values {
	out := url.Values{}
	for k, v := range params {
		if k != "token" {
			out[k] = slices.Clone(v)
		}
	}
	return out
}

// authenticate never puts the token into the error: Slack does not either.
func (s *Server) authenticate(token string, wantApp bool) *apiError {
	s.mu.Lock()
	want, other, revoked := s.opts.BotToken, s.opts.AppToken, s.revoked[token]
	s.mu.Unlock()
	if wantApp {
		want, other = other, want
	}
	switch {
	case token == "":
		return errCode("not_authed")
	case revoked:
		return errCode("token_revoked")
	}
	switch token {
	case want:
		return nil
	case other:
		return errCode("not_allowed_token_type")
	default:
		return errCode("invalid_auth")
	}
}

func writeAPIError(w http.ResponseWriter, e *apiError) {
	body := map[string]any{"ok": false, "error": e.code}
	if len(e.messages) > 0 {
		body["response_metadata"] = map[string]any{"messages": e.messages}
	}
	writeJSON(w, http.StatusOK, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) authTest(*apiRequest) (map[string]any, *apiError) {
	return map[string]any{
		"url":     s.URL(),
		"team":    "Fake Workspace",
		"user":    "approvals",
		"team_id": s.opts.TeamID,
		"user_id": s.opts.BotUserID,
		"bot_id":  s.opts.BotID,
	}, nil
}

// SetGroup replaces the members of a usergroup (nil members removes it).
func (s *Server) SetGroup(groupID string, members []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if members == nil {
		delete(s.api.groups, groupID)
	} else {
		s.api.groups[groupID] = slices.Clone(members)
	}
	s.notifyLocked()
}

func (s *Server) usergroupsUsersList(req *apiRequest) (map[string]any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	members, ok := s.api.groups[req.params.Get("usergroup")]
	if !ok {
		return nil, errCode("no_such_subteam")
	}
	return map[string]any{"users": append([]string{}, members...)}, nil
}

// anyUserID is any ID that looks like a user's; others are user_not_found.
var anyUserID = regexp.MustCompile(`^[UW][A-Z0-9]+$`)

// usersInfo knows every user ID: people in the fake are whoever a test says they are.
func (s *Server) usersInfo(req *apiRequest) (map[string]any, *apiError) {
	if ids := req.params.Get("users"); ids != "" {
		var users []any
		for id := range strings.SplitSeq(ids, ",") {
			users = append(users, s.user(id))
		}
		return map[string]any{"users": users}, nil
	}
	id := req.params.Get("user")
	if id == "" || !anyUserID.MatchString(id) {
		return nil, errCode("user_not_found")
	}
	return map[string]any{"user": s.user(id)}, nil
}
