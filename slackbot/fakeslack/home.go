package fakeslack

import (
	"encoding/json"
	"fmt"
)

// The App Home's Home tab: one view per person, which the app publishes
// (views.publish) and only that person sees. Opening the tab sends the app
// an app_home_opened event (OpenHome); a button on it sends block_actions
// whose container is the view (ClickHome).

// Home returns the Home tab the app published for user.
func (s *Server) Home(user string) (View, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.views.homes[user]
	if !ok {
		return View{}, false
	}
	return v.clone(), true
}

// viewsPublish sets a person's Home tab. Like Slack it keeps the view's ID
// across publishes, refuses a stale hash (hash_conflict), and checks the
// view as a home view: type home, at most 100 blocks, 250 kB.
func (s *Server) viewsPublish(req *apiRequest) (map[string]any, *apiError) {
	user := req.params.Get("user_id")
	if !userIDPattern.MatchString(user) {
		return nil, &apiError{code: "invalid_arguments", messages: []string{"[ERROR] invalid `user_id`"}}
	}
	raw := json.RawMessage(req.params.Get("view"))
	view, e := validateHomeView(raw)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.views.homes[user]
	if h := req.params.Get("hash"); h != "" && (!ok || h != v.Hash) {
		return nil, errCode("hash_conflict")
	}
	if !ok {
		v = &View{ID: s.nextIDLocked("V"), User: user}
		s.views.homes[user] = v
	} else {
		v.Updates++
	}
	s.setViewLocked(v, raw, view)
	s.notifyLocked()
	return map[string]any{"view": s.viewJSON(v, view)}, nil
}

// validateHomeView checks a view for views.publish.
func validateHomeView(raw json.RawMessage) (map[string]any, *apiError) {
	return checkView(raw, "home", func(map[string]any, *blockChecker, bool) {})
}

// OpenHome plays user opening the app's Home tab (tab "home") or its
// Messages tab (tab "messages"): the app gets an app_home_opened event,
// with the Home view as it stands when one was published. Like every
// event, it is redelivered when not acked.
func (s *Server) OpenHome(user, tab string) (envelopeID string, err error) {
	if tab != "home" && tab != "messages" {
		return "", fmt.Errorf("fakeslack: the App Home has no tab %q", tab)
	}
	event := map[string]any{"user": user, "channel": DMChannel(user), "tab": tab}
	s.mu.Lock()
	event["event_ts"] = s.nextTSLocked()
	if v, ok := s.views.homes[user]; ok && tab == "home" {
		var view map[string]any
		_ = json.Unmarshal(v.View, &view)
		event["view"] = s.viewJSON(v, view)
	}
	s.mu.Unlock()
	return s.SendEvent("app_home_opened", event)
}

// ClickHome plays user clicking a button on their Home tab, and sends the
// block_actions envelope: its container is the view ({"type": "view",
// "view_id": …}), it carries the view (with the state user left on it) and
// a fresh trigger_id, and has no channel, message or response_url. Like
// Click, an action the Home has in a menu rather than as a button is
// picked there. It fails when user has no Home or it has no such button,
// and with ErrNoConnection when no socket is live.
func (s *Server) ClickHome(user, actionID, value string) (envelopeID string, err error) {
	return s.actHome(user, actionRef{button: actionID, value: value})
}

func (s *Server) actHome(user string, ref actionRef) (string, error) {
	s.mu.Lock()
	v, ok := s.views.homes[user]
	if !ok {
		s.mu.Unlock()
		return "", fmt.Errorf("fakeslack: %s has no Home tab", user)
	}
	var view map[string]any
	_ = json.Unmarshal(v.View, &view)
	blocks, _ := json.Marshal(view["blocks"])
	action, picked, err := s.resolveLocked(blocks, ref)
	if err != nil {
		s.mu.Unlock()
		return "", fmt.Errorf("fakeslack: %s's Home: %w", user, err)
	}
	if picked != nil {
		s.rememberLocked(user, "view/"+v.ID, *picked)
	}
	rendered := s.viewJSON(v, view)
	rendered["state"] = s.stateLocked(user, "view/"+v.ID)
	payload := map[string]any{
		"type":                  "block_actions",
		"user":                  s.userRef(user),
		"api_app_id":            s.opts.AppID,
		"token":                 "fakeslack-verification",
		"container":             map[string]any{"type": "view", "view_id": v.ID},
		"trigger_id":            s.mintTriggerLocked(user),
		"team":                  map[string]any{"id": s.opts.TeamID, "domain": "fake"},
		"view":                  rendered,
		"actions":               []any{action},
		"is_enterprise_install": false,
	}
	s.mu.Unlock()
	return s.send(&envelope{Envelope: Envelope{Type: "interactive", Payload: mustJSON(payload)}})
}
