package fakeslack

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"
)

// View is a modal the bot opened for a user.
type View struct {
	ID, User, CallbackID, PrivateMetadata, ExternalID, Hash string
	// View is the view as the bot last sent it (views.open or views.update).
	View json.RawMessage
	// Updates counts views.update calls and response_action "update" acks.
	Updates int
	// Closed is set when a submission was acked without response_action "errors" or "update",
	// or the user closed the view (CloseView).
	Closed bool
	// Errors are the messages of the last submission's response_action "errors" ack, by block_id,
	// shown under those inputs until the next submission.
	Errors map[string]string
}

func (v *View) clone() View {
	c := *v
	c.Errors = maps.Clone(v.Errors)
	return c
}

type trigger struct {
	user   string
	minted time.Time
	used   bool
}

type viewState struct {
	triggers map[string]*trigger
	byID     map[string]*View
	order    []*View
	homes    map[string]*View // the Home tab of each person, by user ID
	// state holds the inputs each person left on a message or view (see
	// menus.go), by stateKey.
	state map[string]map[string]map[string]any
}

func (v *viewState) init() {
	v.triggers = map[string]*trigger{}
	v.byID = map[string]*View{}
	v.homes = map[string]*View{}
}

func (s *Server) mintTriggerLocked(user string) string {
	s.seq++
	now := s.opts.Now()
	id := fmt.Sprintf("%d.%d.%016x", s.seq, now.Unix(), s.seq*7919)
	s.views.triggers[id] = &trigger{user: user, minted: now}
	return id
}

// Views returns the views opened for user, in open order.
func (s *Server) Views(user string) []View {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []View
	for _, v := range s.views.order {
		if v.User == user {
			out = append(out, v.clone())
		}
	}
	return out
}

// OpenView returns the modal user sees: the last view opened for them that is still open.
func (s *Server) OpenView(user string) (View, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range slices.Backward(s.views.order) {
		if v.User == user && !v.Closed {
			return v.clone(), true
		}
	}
	return View{}, false
}

// CloseView plays user dismissing an open modal (its close button). Like Slack, the app hears of
// it only when the view asked for notify_on_close: a view_closed envelope is then sent. It fails
// when user has no such open view, and with ErrNoConnection when the envelope found no socket
// (the view is closed all the same).
func (s *Server) CloseView(user, viewID string) (envelopeID string, err error) {
	s.mu.Lock()
	v, ok := s.views.byID[viewID]
	if !ok || v.User != user || v.Closed {
		s.mu.Unlock()
		return "", fmt.Errorf("fakeslack: %s has no open view %s", user, viewID)
	}
	v.Closed = true
	s.notifyLocked()
	var view map[string]any
	_ = json.Unmarshal(v.View, &view)
	if notify, _ := view["notify_on_close"].(bool); !notify {
		s.mu.Unlock()
		return "", nil
	}
	payload := map[string]any{
		"type":                  "view_closed",
		"team":                  map[string]any{"id": s.opts.TeamID, "domain": "fake"},
		"user":                  s.userRef(user),
		"api_app_id":            s.opts.AppID,
		"token":                 "fakeslack-verification",
		"view":                  s.viewJSON(v, view),
		"is_cleared":            false,
		"is_enterprise_install": false,
	}
	s.mu.Unlock()
	return s.send(&envelope{Envelope: Envelope{Type: "interactive", Payload: mustJSON(payload)}})
}

// viewsOpen consumes the trigger only when the view is opened.
func (s *Server) viewsOpen(req *apiRequest) (map[string]any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.views.triggers[req.params.Get("trigger_id")]
	switch {
	case !ok:
		return nil, errCode("invalid_trigger_id")
	case t.used:
		return nil, errCode("exchanged_trigger_id")
	case s.opts.Now().Sub(t.minted) > s.opts.TriggerTTL:
		return nil, errCode("expired_trigger_id")
	}
	raw := json.RawMessage(req.params.Get("view"))
	view, e := validateView(raw)
	if e != nil {
		return nil, e
	}
	t.used = true
	v := &View{ID: s.nextIDLocked("V"), User: t.user}
	s.setViewLocked(v, raw, view)
	s.views.byID[v.ID] = v
	s.views.order = append(s.views.order, v)
	s.notifyLocked()
	return map[string]any{"view": s.viewJSON(v, view)}, nil
}

func (s *Server) viewsUpdate(req *apiRequest) (map[string]any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.views.byID[req.params.Get("view_id")]
	if ext := req.params.Get("external_id"); v == nil && ext != "" {
		for _, cand := range s.views.order {
			if cand.ExternalID == ext {
				v = cand
			}
		}
	}
	if v == nil || v.Closed {
		return nil, errCode("not_found")
	}
	if h := req.params.Get("hash"); h != "" && h != v.Hash {
		return nil, errCode("hash_conflict")
	}
	raw := json.RawMessage(req.params.Get("view"))
	view, e := validateView(raw)
	if e != nil {
		return nil, e
	}
	s.setViewLocked(v, raw, view)
	v.Updates++
	s.notifyLocked()
	return map[string]any{"view": s.viewJSON(v, view)}, nil
}

func (s *Server) setViewLocked(v *View, raw json.RawMessage, view map[string]any) {
	v.View = raw
	v.CallbackID, _ = view["callback_id"].(string)
	v.PrivateMetadata, _ = view["private_metadata"].(string)
	v.ExternalID, _ = view["external_id"].(string)
	s.seq++
	v.Hash = fmt.Sprintf("%d.fakehash%d", s.opts.Now().Unix(), s.seq)
}

// viewJSON renders a stored view as views.* responses and view_submission payloads show it.
func (s *Server) viewJSON(v *View, view map[string]any) map[string]any {
	out := map[string]any{}
	for k, val := range view {
		out[k] = val
	}
	out["id"] = v.ID
	out["team_id"] = s.opts.TeamID
	out["app_id"] = s.opts.AppID
	out["bot_id"] = s.opts.BotID
	out["hash"] = v.Hash
	out["root_view_id"] = v.ID
	out["private_metadata"] = v.PrivateMetadata
	out["callback_id"] = v.CallbackID
	out["state"] = map[string]any{"values": map[string]any{}}
	return out
}

// NewTrigger mints a trigger_id for user, as a click or slash command would, for tests that call
// views.open directly. It expires after TriggerTTL by Options.Now and works once.
func (s *Server) NewTrigger(user string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mintTriggerLocked(user)
}
