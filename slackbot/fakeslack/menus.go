package fakeslack

import (
	"encoding/json"
	"fmt"
)

// Menus and the state of a message's inputs. In Slack an overflow menu
// and a static_select send block_actions when an option is picked: the
// action carries the element's action_id and block_id and the
// selected_option (its value and text), no "value" of its own. Every
// block_actions payload of a message or view also carries "state": the
// current values of its stateful elements (a static_select's pick), as
// the person left them; the fake keeps them per person and message or
// view. A confirm dialog is Slack's own: a Click stands for the person
// having confirmed it (ButtonRef.Confirm says what the dialog said);
// denying sends nothing.

// MenuOption is an option of an overflow menu or a static_select.
type MenuOption struct {
	BlockID, ActionID string
	// Type is "overflow" or "static_select".
	Type        string
	Value, Text string
}

// MenuOptions lists the options of the menus in blocks, in order.
func MenuOptions(blocks json.RawMessage) []MenuOption {
	var out []MenuOption
	eachElement(blocks, func(blockID string, m map[string]any) {
		typ, _ := m["type"].(string)
		if typ != "overflow" && typ != "static_select" {
			return
		}
		actionID, _ := m["action_id"].(string)
		opts, _ := m["options"].([]any)
		for _, o := range opts {
			om, _ := o.(map[string]any)
			value, _ := om["value"].(string)
			text := ""
			if t, ok := om["text"].(map[string]any); ok {
				text, _ = t["text"].(string)
			}
			out = append(out, MenuOption{BlockID: blockID, ActionID: actionID, Type: typ, Value: value, Text: text})
		}
	})
	return out
}

// eachElement calls fn with every interactive element in blocks (actions
// elements and section accessories) and its block's ID.
func eachElement(blocks json.RawMessage, fn func(blockID string, element map[string]any)) {
	var list []map[string]any
	if json.Unmarshal(blocks, &list) != nil {
		return
	}
	for i, b := range list {
		blockID, _ := b["block_id"].(string)
		if blockID == "" {
			blockID = fmt.Sprintf("fakeslack-block-%d", i)
		}
		var elems []any
		if b["type"] == "actions" {
			elems, _ = b["elements"].([]any)
		}
		if acc, ok := b["accessory"]; ok {
			elems = append(elems, acc)
		}
		for _, e := range elems {
			if m, ok := e.(map[string]any); ok {
				fn(blockID, m)
			}
		}
	}
}

// findMenuOption picks the option with the value in the menu with
// actionID ("" for any menu), in the block blockID ("" for any).
func findMenuOption(blocks json.RawMessage, actionID, value, blockID string) (MenuOption, bool) {
	for _, o := range MenuOptions(blocks) {
		if o.Value == value && (actionID == "" || o.ActionID == actionID) && (blockID == "" || o.BlockID == blockID) {
			return o, true
		}
	}
	return MenuOption{}, false
}

// menuActionLocked is the actions entry of a block_actions payload for
// picking o.
func (s *Server) menuActionLocked(o MenuOption) map[string]any {
	return map[string]any{
		"type":            o.Type,
		"action_id":       o.ActionID,
		"block_id":        o.BlockID,
		"selected_option": map[string]any{"text": map[string]any{"type": "plain_text", "text": o.Text, "emoji": true}, "value": o.Value},
		"action_ts":       s.nextTSLocked(),
	}
}

// stateKey names the inputs user left on a message or a view.
func stateKey(user, where string) string { return user + "|" + where }

// rememberLocked records a static_select pick as the state of the
// message or view where.
func (s *Server) rememberLocked(user, where string, o MenuOption) {
	if o.Type != "static_select" {
		return
	}
	key := stateKey(user, where)
	if s.views.state == nil {
		s.views.state = map[string]map[string]map[string]any{}
	}
	values := s.views.state[key]
	if values == nil {
		values = map[string]map[string]any{}
		s.views.state[key] = values
	}
	values[o.BlockID] = map[string]any{o.ActionID: map[string]any{
		"type":            "static_select",
		"selected_option": map[string]any{"text": map[string]any{"type": "plain_text", "text": o.Text, "emoji": true}, "value": o.Value},
	}}
}

// stateLocked is the "state" of a block_actions payload from where.
func (s *Server) stateLocked(user, where string) map[string]any {
	values := map[string]any{}
	for block, v := range s.views.state[stateKey(user, where)] {
		values[block] = v
	}
	return map[string]any{"values": values}
}

// Choose plays user picking the option with value in the menu (overflow
// or static_select) with menuActionID of a message the fake holds, and
// sends the block_actions envelope. A static_select's pick stays in the
// message's state for user's later clicks on it. It fails when the
// message or option is unknown, and with ErrNoConnection when no socket
// is live.
func (s *Server) Choose(user, channel, messageTS, menuActionID, value string) (envelopeID string, err error) {
	return s.act(user, channel, messageTS, actionRef{menu: menuActionID, option: value}, false)
}

// ChooseHome is Choose on user's Home tab; a static_select's pick stays
// in the view's state.
func (s *Server) ChooseHome(user, menuActionID, value, blockID string) (envelopeID string, err error) {
	return s.actHome(user, actionRef{menu: menuActionID, option: value, block: blockID})
}
