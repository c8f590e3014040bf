package fakeslack

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Click plays user clicking a button in a message the fake holds, and sends the block_actions
// envelope. The button is the one with actionID (and value, when value is not empty); when the
// message has no such button, the option with the value actionID of one of its menus (overflow or
// static_select) in the block value (any block when value is empty) is picked, as with Choose, so
// that a test can "click" an action wherever the message puts it. A button with a confirm dialog
// stands for the person having confirmed it. The payload carries a fresh trigger_id, the
// message's state as user left it, and a response_url. It fails when the message or button is
// unknown, and with ErrNoConnection when no socket is live (the click is then a Failure).
func (s *Server) Click(user, channel, messageTS, actionID, value string) (envelopeID string, err error) {
	return s.act(user, channel, messageTS, actionRef{button: actionID, value: value}, false)
}

// ClickVia is Click with the envelope delivered to a chosen socket rather than a random one: socket
// indexes the live sockets in the order they connected, modulo their number. Slack may deliver any
// envelope to any of an app's sockets; two clicks via different sockets of different processes
// reach two replicas at once.
func (s *Server) ClickVia(socket int, user, channel, messageTS, actionID, value string) (envelopeID string, err error) {
	return s.act(user, channel, messageTS, actionRef{button: actionID, value: value, via: &socket}, false)
}

// ClickEphemeral is Click on an ephemeral message shown to user. Like Slack, the payload has
// container.is_ephemeral and no message; the response_url can replace or delete the message.
func (s *Server) ClickEphemeral(user, channel, messageTS, actionID, value string) (envelopeID string, err error) {
	return s.act(user, channel, messageTS, actionRef{button: actionID, value: value}, true)
}

// actionRef names what a person acts on: a button (and its value), or an
// option of a menu (in a block).
type actionRef struct {
	button, value       string
	menu, option, block string
	// via pins the envelope to a socket (see ClickVia); nil for Slack's pick.
	via *int
}

// resolveLocked finds ref in blocks and returns the actions entry of its
// block_actions payload, and the option picked (for a menu).
func (s *Server) resolveLocked(blocks json.RawMessage, ref actionRef) (map[string]any, *MenuOption, error) {
	if ref.button != "" {
		if b, ok := findButton(blocks, ref.button, ref.value); ok {
			return s.buttonActionLocked(b), nil, nil
		}
		if o, ok := findMenuOption(blocks, "", ref.button, ref.value); ok {
			return s.menuActionLocked(o), &o, nil
		}
		return nil, nil, fmt.Errorf("no button %q with value %q, nor a menu option %q", ref.button, ref.value, ref.button)
	}
	o, ok := findMenuOption(blocks, ref.menu, ref.option, ref.block)
	if !ok {
		return nil, nil, fmt.Errorf("no menu %q with an option %q", ref.menu, ref.option)
	}
	return s.menuActionLocked(o), &o, nil
}

func (s *Server) act(user, channel, messageTS string, ref actionRef, ephemeral bool) (string, error) {
	s.mu.Lock()
	m := s.findLocked(channel, messageTS)
	if ephemeral {
		m = s.findEphemeralLocked(user, channel, messageTS)
	}
	if m == nil || m.Deleted {
		s.mu.Unlock()
		return "", fmt.Errorf("fakeslack: no message %s in %s", messageTS, channel)
	}
	action, picked, err := s.resolveLocked(m.Blocks, ref)
	if err != nil {
		s.mu.Unlock()
		return "", fmt.Errorf("fakeslack: message %s: %w", messageTS, err)
	}
	where := channel + "/" + m.TS
	if picked != nil {
		s.rememberLocked(user, where, *picked)
	}
	container := map[string]any{
		"type": "message", "message_ts": m.TS, "channel_id": channel, "is_ephemeral": ephemeral,
	}
	if m.ThreadTS != "" {
		container["thread_ts"] = m.ThreadTS
	}
	payload := map[string]any{
		"type":       "block_actions",
		"user":       s.userRef(user),
		"api_app_id": s.opts.AppID,
		"token":      "fakeslack-verification",
		"container":  container,
		"trigger_id": s.mintTriggerLocked(user),
		"team":       map[string]any{"id": s.opts.TeamID, "domain": "fake"},
		"channel":    map[string]any{"id": channel, "name": channel},
		"state":      s.stateLocked(user, where),
		"response_url": s.mintResponseURLLocked(responseURL{
			user: user, channel: channel, messageTS: m.TS, ephemeral: ephemeral,
		}),
		"actions":               []any{action},
		"is_enterprise_install": false,
	}
	if !ephemeral {
		payload["message"] = s.messageJSON(m.Message)
	}
	s.mu.Unlock()
	env := &envelope{Envelope: Envelope{Type: "interactive", Payload: mustJSON(payload)}}
	if ref.via != nil {
		env.pinned, env.via = true, max(*ref.via, 0)
	}
	return s.send(env)
}

// Slash plays user running a slash command in channel, e.g. Slash("U1", "C1", "/approvals",
// "pending"). An ack payload with text or blocks is shown to the user like Slack does
// (ephemeral unless response_type is "in_channel").
func (s *Server) Slash(user, channel, command, text string) (envelopeID string, err error) {
	s.mu.Lock()
	payload := map[string]any{
		"token":                 "fakeslack-verification",
		"team_id":               s.opts.TeamID,
		"team_domain":           "fake",
		"channel_id":            channel,
		"channel_name":          channel,
		"user_id":               user,
		"user_name":             strings.ToLower(user),
		"command":               command,
		"text":                  text,
		"api_app_id":            s.opts.AppID,
		"is_enterprise_install": false,
		"response_url":          s.mintResponseURLLocked(responseURL{user: user, channel: channel}),
		"trigger_id":            s.mintTriggerLocked(user),
	}
	s.mu.Unlock()
	return s.send(&envelope{
		Envelope:        Envelope{Type: "slash_commands", Payload: mustJSON(payload)},
		acceptsResponse: true,
		onAck: func(ack json.RawMessage) {
			s.showAckLocked(ack, user, channel)
		},
	})
}

// showAckLocked shows a slash command's ack payload to the user.
func (s *Server) showAckLocked(ack json.RawMessage, user, channel string) {
	var resp struct {
		Text         string          `json:"text"`
		Blocks       json.RawMessage `json:"blocks"`
		ResponseType string          `json:"response_type"`
	}
	if json.Unmarshal(ack, &resp) != nil || (resp.Text == "" && len(resp.Blocks) == 0) {
		return
	}
	m := Message{Channel: channel, TS: s.nextTSLocked(), User: s.opts.BotUserID, Text: resp.Text}
	if len(resp.Blocks) > 0 && string(resp.Blocks) != "null" {
		m.Blocks = resp.Blocks
	}
	if resp.ResponseType != "in_channel" {
		m.Ephemeral, m.To = true, user
	}
	s.addMessageLocked(m)
}

// Submit plays user submitting a modal the bot opened for them. values are state.values:
// block_id -> action_id -> element state, e.g.
// {"reason": {"text": {"type": "plain_text_input", "value": "nope"}}},
// {"preset": {"choice": {"type": "radio_buttons", "selected_option": {"value": "Shorter"}}}} or
// {"to": {"who": {"type": "users_select", "selected_user": "U0BOB"}}} ("selected_user": nil for an
// optional picker left empty, as Slack sends it).
// Every block_id/action_id must name an input block of the view. The ack decides what happens to
// the view: response_action "errors" keeps it open with the errors (View.Errors), "push" keeps it
// open, "update" replaces it, anything else closes it.
func (s *Server) Submit(user, viewID string, values map[string]map[string]any) (envelopeID string, err error) {
	s.mu.Lock()
	v, ok := s.views.byID[viewID]
	if !ok || v.User != user || v.Closed {
		s.mu.Unlock()
		return "", fmt.Errorf("fakeslack: %s has no open view %s", user, viewID)
	}
	var view map[string]any
	_ = json.Unmarshal(v.View, &view)
	if err := checkInputs(view, values); err != nil {
		s.mu.Unlock()
		return "", err
	}
	rendered := s.viewJSON(v, view)
	rendered["state"] = map[string]any{"values": values}
	payload := map[string]any{
		"type":                  "view_submission",
		"team":                  map[string]any{"id": s.opts.TeamID, "domain": "fake"},
		"user":                  s.userRef(user),
		"api_app_id":            s.opts.AppID,
		"token":                 "fakeslack-verification",
		"trigger_id":            s.mintTriggerLocked(user),
		"view":                  rendered,
		"response_urls":         []any{},
		"is_enterprise_install": false,
	}
	s.mu.Unlock()
	return s.send(&envelope{
		Envelope:        Envelope{Type: "interactive", Payload: mustJSON(payload)},
		acceptsResponse: true,
		onAck: func(ack json.RawMessage) {
			s.applySubmissionAckLocked(v, ack)
		},
	})
}

func (s *Server) applySubmissionAckLocked(v *View, ack json.RawMessage) {
	var resp struct {
		ResponseAction string            `json:"response_action"`
		View           json.RawMessage   `json:"view"`
		Errors         map[string]string `json:"errors"`
	}
	_ = json.Unmarshal(ack, &resp)
	v.Errors = nil
	switch resp.ResponseAction {
	case "errors":
		v.Errors = resp.Errors
	case "push":
	case "update":
		if view, e := validateView(resp.View); e == nil {
			s.setViewLocked(v, resp.View, view)
			v.Updates++
		}
	default:
		v.Closed = true
	}
	s.notifyLocked()
}

func checkInputs(view map[string]any, values map[string]map[string]any) error {
	type input struct {
		actionID, kind string
		optional       bool
	}
	inputs := map[string]input{}
	blocks, _ := view["blocks"].([]any)
	for _, b := range blocks {
		m, _ := b.(map[string]any)
		if m["type"] != "input" {
			continue
		}
		blockID, _ := m["block_id"].(string)
		el, _ := m["element"].(map[string]any)
		actionID, _ := el["action_id"].(string)
		kind, _ := el["type"].(string)
		optional, _ := m["optional"].(bool)
		inputs[blockID] = input{actionID, kind, optional}
	}
	for blockID, actions := range values {
		in, ok := inputs[blockID]
		if !ok {
			return fmt.Errorf("fakeslack: view has no input block %q", blockID)
		}
		for a, state := range actions {
			if a != in.actionID {
				return fmt.Errorf("fakeslack: input block %q has no action %q", blockID, a)
			}
			if in.kind != "users_select" {
				continue
			}
			st, _ := state.(map[string]any)
			u, present := st["selected_user"]
			if in.optional && present && u == nil {
				continue // an optional picker left empty: Slack sends "selected_user": null
			}
			if id, _ := u.(string); !userIDPattern.MatchString(id) {
				return fmt.Errorf("fakeslack: users_select %q needs selected_user, a user ID (null only when the input is optional)", blockID)
			}
		}
	}
	return nil
}

// SendEvent sends an events_api envelope with an event_callback around event, whose "type" is set
// to eventType. Unacked, it is redelivered up to 3 times with retry_attempt and retry_reason
// "timeout", AckTimeout apart.
func (s *Server) SendEvent(eventType string, event map[string]any) (envelopeID string, err error) {
	inner := map[string]any{}
	for k, v := range event {
		inner[k] = v
	}
	inner["type"] = eventType
	s.mu.Lock()
	payload := map[string]any{
		"token":      "fakeslack-verification",
		"team_id":    s.opts.TeamID,
		"api_app_id": s.opts.AppID,
		"type":       "event_callback",
		"event_id":   s.nextIDLocked("Ev"),
		"event_time": s.opts.Now().Unix(),
		"event":      inner,
	}
	s.mu.Unlock()
	return s.send(&envelope{Envelope: Envelope{Type: "events_api", Payload: mustJSON(payload)}})
}

func (s *Server) userRef(user string) map[string]any {
	name := strings.ToLower(user)
	return map[string]any{"id": user, "username": name, "name": name, "team_id": s.opts.TeamID}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fakeslack: marshal payload: %v", err))
	}
	return b
}

// buttonActionLocked is the actions entry of a block_actions payload for a
// click on button.
func (s *Server) buttonActionLocked(button ButtonRef) map[string]any {
	return map[string]any{
		"type":      "button",
		"action_id": button.ActionID,
		"block_id":  button.BlockID,
		"text":      map[string]any{"type": "plain_text", "text": button.Text, "emoji": true},
		"value":     button.Value,
		"action_ts": s.nextTSLocked(),
	}
}
