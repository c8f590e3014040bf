package fakeslack

import (
	"encoding/json"
	"fmt"
)

// ButtonRef is a button found in a block list.
type ButtonRef struct {
	BlockID, ActionID, Text, Value, Style string
	// Confirm is the text of the button's confirm dialog ("" for none):
	// what Slack asks before it sends the click.
	Confirm string
}

// ButtonActions lists the buttons in blocks (actions elements and section accessories) in order,
// so a test can find "Approve draft 2" by its label. Blocks without a block_id get the ID the
// fake uses for them in clicks ("fakeslack-block-<index>").
func ButtonActions(blocks json.RawMessage) []ButtonRef {
	var list []map[string]any
	if json.Unmarshal(blocks, &list) != nil {
		return nil
	}
	var out []ButtonRef
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
			m, _ := e.(map[string]any)
			if m["type"] != "button" {
				continue
			}
			ref := ButtonRef{BlockID: blockID}
			ref.ActionID, _ = m["action_id"].(string)
			ref.Value, _ = m["value"].(string)
			ref.Style, _ = m["style"].(string)
			if t, ok := m["text"].(map[string]any); ok {
				ref.Text, _ = t["text"].(string)
			}
			if c, ok := m["confirm"].(map[string]any); ok {
				if t, ok := c["text"].(map[string]any); ok {
					ref.Confirm, _ = t["text"].(string)
				}
			}
			out = append(out, ref)
		}
	}
	return out
}

// findButton picks the button with actionID, and with value when value is not empty.
func findButton(blocks json.RawMessage, actionID, value string) (ButtonRef, bool) {
	for _, b := range ButtonActions(blocks) {
		if b.ActionID == actionID && (value == "" || b.Value == value) {
			return b, true
		}
	}
	return ButtonRef{}, false
}
