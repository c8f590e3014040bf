package fakeslack

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Limits Slack enforces on messages and modals (docs.slack.dev Block Kit reference).
const (
	maxMessageBlocks    = 50
	maxMessageBlocksLen = 13000
	maxTextLen          = 40000
	maxModalBlocks      = 100
	maxViewBytes        = 250 * 1000
	maxModalTitleLen    = 24
	maxPrivateMetadata  = 3000
	maxIDLen            = 255
)

// apiError is a Web API error: its code goes into "error", its messages into
// response_metadata.messages as Slack does for invalid_blocks.
type apiError struct {
	code     string
	messages []string
}

func (e *apiError) Error() string { return e.code }

func errCode(code string) *apiError { return &apiError{code: code} }

// blockChecker collects problems found while walking a block list.
type blockChecker struct {
	problems []string
	blockIDs map[string]bool
}

func (c *blockChecker) fail(path, format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf("[ERROR] %s [json-pointer:%s]", fmt.Sprintf(format, args...), path))
}

// validateMessageBlocks checks the "blocks" form field of chat.* calls. It returns the blocks as
// compact JSON, or nil when the field is empty.
func validateMessageBlocks(raw string) (json.RawMessage, *apiError) {
	if raw == "" {
		return nil, nil
	}
	var blocks []map[string]any
	if err := json.Unmarshal([]byte(raw), &blocks); err != nil {
		return nil, &apiError{code: "invalid_blocks", messages: []string{"[ERROR] blocks must be a JSON array of objects [json-pointer:/blocks]"}}
	}
	if utf8.RuneCountInString(raw) > maxMessageBlocksLen {
		return nil, errCode("msg_blocks_too_long")
	}
	c := &blockChecker{blockIDs: map[string]bool{}}
	if len(blocks) > maxMessageBlocks {
		c.fail("/blocks", "no more than %d items allowed", maxMessageBlocks)
	}
	for i, b := range blocks {
		c.block(fmt.Sprintf("/blocks/%d", i), b)
	}
	if len(c.problems) > 0 {
		return nil, &apiError{code: "invalid_blocks", messages: c.problems}
	}
	compact, _ := json.Marshal(blocks)
	return compact, nil
}

// validateView checks a modal view for views.open and views.update.
func validateView(raw json.RawMessage) (map[string]any, *apiError) {
	return checkView(raw, "modal", func(view map[string]any, c *blockChecker, hasInput bool) {
		if _, ok := view["title"]; !ok {
			c.fail("/view/title", "missing required field")
		}
		for _, k := range []string{"title", "submit", "close"} {
			if v, ok := view[k]; ok {
				c.textObject("/view/"+k, v, maxModalTitleLen)
			}
		}
		if _, ok := view["submit"]; hasInput && !ok {
			c.fail("/view/submit", "submit is required when a view has input blocks")
		}
	})
}

// checkView parses a view of type typ and checks what every view shares
// (size, type, IDs, blocks); more adds the checks of its kind, told
// whether the view has an input block.
func checkView(raw json.RawMessage, typ string, more func(view map[string]any, c *blockChecker, hasInput bool)) (map[string]any, *apiError) {
	if len(raw) > maxViewBytes {
		return nil, errCode("view_too_large")
	}
	var view map[string]any
	if err := json.Unmarshal(raw, &view); err != nil || view == nil {
		return nil, &apiError{code: "invalid_arguments", messages: []string{"[ERROR] view must be a JSON object [json-pointer:/view]"}}
	}
	c := &blockChecker{blockIDs: map[string]bool{}}
	if view["type"] != typ {
		c.fail("/view/type", "must be %s", typ)
	}
	c.maxString("/view/private_metadata", view["private_metadata"], maxPrivateMetadata)
	c.maxString("/view/callback_id", view["callback_id"], maxIDLen)
	c.maxString("/view/external_id", view["external_id"], maxIDLen)
	blocks, _ := view["blocks"].([]any)
	if len(blocks) > maxModalBlocks {
		c.fail("/view/blocks", "no more than %d items allowed", maxModalBlocks)
	}
	hasInput := false
	for i, b := range blocks {
		m, _ := b.(map[string]any)
		if m["type"] == "input" {
			hasInput = true
		}
		c.block(fmt.Sprintf("/view/blocks/%d", i), m)
	}
	more(view, c, hasInput)
	if len(c.problems) > 0 {
		return nil, &apiError{code: "invalid_arguments", messages: c.problems}
	}
	return view, nil
}

func (c *blockChecker) block(path string, b map[string]any) {
	typ, _ := b["type"].(string)
	if typ == "" {
		c.fail(path+"/type", "missing required field")
		return
	}
	if id, ok := b["block_id"]; ok {
		s, _ := id.(string)
		c.maxString(path+"/block_id", id, maxIDLen)
		if c.blockIDs[s] {
			c.fail(path+"/block_id", "duplicate block_id %q", s)
		}
		c.blockIDs[s] = true
	}
	switch typ {
	case "section":
		_, hasText := b["text"]
		fields, _ := b["fields"].([]any)
		if !hasText && len(fields) == 0 {
			c.fail(path, "must provide text or fields")
		}
		if hasText {
			c.textObject(path+"/text", b["text"], 3000)
		}
		if len(fields) > 10 {
			c.fail(path+"/fields", "no more than 10 items allowed")
		}
		for i, f := range fields {
			c.textObject(fmt.Sprintf("%s/fields/%d", path, i), f, 2000)
		}
		if acc, ok := b["accessory"].(map[string]any); ok {
			c.element(path+"/accessory", acc)
		}
	case "header":
		c.textObject(path+"/text", b["text"], 150)
	case "actions":
		elems, _ := b["elements"].([]any)
		if len(elems) == 0 || len(elems) > 25 {
			c.fail(path+"/elements", "must have between 1 and 25 items")
		}
		actionIDs := map[string]bool{}
		for i, e := range elems {
			m, _ := e.(map[string]any)
			p := fmt.Sprintf("%s/elements/%d", path, i)
			c.element(p, m)
			if id, _ := m["action_id"].(string); id != "" {
				if actionIDs[id] {
					c.fail(p+"/action_id", "duplicate action_id %q in block", id)
				}
				actionIDs[id] = true
			}
		}
	case "context":
		if elems, _ := b["elements"].([]any); len(elems) > 10 {
			c.fail(path+"/elements", "no more than 10 items allowed")
		}
	case "input":
		c.textObject(path+"/label", b["label"], 2000)
		el, ok := b["element"].(map[string]any)
		if !ok {
			c.fail(path+"/element", "missing required field")
			break
		}
		c.element(path+"/element", el)
	}
}

func (c *blockChecker) element(path string, e map[string]any) {
	typ, _ := e["type"].(string)
	if typ == "" {
		c.fail(path+"/type", "missing required field")
		return
	}
	c.maxString(path+"/action_id", e["action_id"], maxIDLen)
	if cf, ok := e["confirm"]; ok {
		c.confirm(path+"/confirm", cf)
	}
	switch typ {
	case "button":
		c.textObject(path+"/text", e["text"], 75)
		c.maxString(path+"/value", e["value"], 2000)
		c.maxString(path+"/url", e["url"], 3000)
		if st, ok := e["style"]; ok && st != "primary" && st != "danger" {
			c.fail(path+"/style", "must be primary or danger")
		}
	case "plain_text_input":
		if v, ok := e["max_length"].(float64); ok && (v < 1 || v > 3000) {
			c.fail(path+"/max_length", "must be between 1 and 3000")
		}
		if v, ok := e["min_length"].(float64); ok && (v < 0 || v > 3000) {
			c.fail(path+"/min_length", "must be between 0 and 3000")
		}
	case "users_select":
		if p, ok := e["placeholder"]; ok {
			c.textObject(path+"/placeholder", p, 150)
		}
		if u, ok := e["initial_user"]; ok {
			if s, _ := u.(string); !userIDPattern.MatchString(s) {
				c.fail(path+"/initial_user", "must be a user ID")
			}
		}
	case "radio_buttons", "checkboxes", "static_select", "multi_static_select", "overflow":
		opts, _ := e["options"].([]any)
		limit := 10
		switch typ {
		case "static_select", "multi_static_select":
			limit = 100
		case "overflow":
			limit = 5
		}
		if _, grouped := e["option_groups"]; !grouped && (len(opts) == 0 || len(opts) > limit) {
			c.fail(path+"/options", "must have between 1 and %d items", limit)
		}
		c.options(path, e)
	}
}

// options checks an element's options, grouped or not: each has text and
// a value, and no two share a value (Slack refuses the element: the value
// is what the app receives, so two equal values could not be told apart).
func (c *blockChecker) options(path string, e map[string]any) {
	type located struct{ path string }
	seen := map[string]located{}
	check := func(p string, o any) {
		m, _ := o.(map[string]any)
		c.textObject(p+"/text", m["text"], 75)
		c.maxString(p+"/value", m["value"], 150)
		v, ok := m["value"].(string)
		if !ok {
			return
		}
		if first, dup := seen[v]; dup {
			c.fail(p+"/value", "duplicate option value: option values must be unique within an element (the first is at %s)", first.path)
			return
		}
		seen[v] = located{p + "/value"}
	}
	opts, _ := e["options"].([]any)
	for i, o := range opts {
		check(fmt.Sprintf("%s/options/%d", path, i), o)
	}
	groups, _ := e["option_groups"].([]any)
	for g, group := range groups {
		m, _ := group.(map[string]any)
		grouped, _ := m["options"].([]any)
		for i, o := range grouped {
			check(fmt.Sprintf("%s/option_groups/%d/options/%d", path, g, i), o)
		}
	}
}

// confirm checks a confirm dialog: a plain_text title (100), a text
// object (300), plain_text confirm and deny (30 each), and a style of
// primary or danger.
func (c *blockChecker) confirm(path string, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		c.fail(path, "must be a confirm object")
		return
	}
	for _, f := range []struct {
		key   string
		limit int
		plain bool
	}{{"title", 100, true}, {"text", 300, false}, {"confirm", 30, true}, {"deny", 30, true}} {
		t, ok := m[f.key]
		if !ok {
			c.fail(path+"/"+f.key, "missing required field")
			continue
		}
		c.textObject(path+"/"+f.key, t, f.limit)
		if tm, _ := t.(map[string]any); f.plain && tm["type"] != "plain_text" {
			c.fail(path+"/"+f.key+"/type", "must be plain_text")
		}
	}
	if st, ok := m["style"]; ok && st != "primary" && st != "danger" {
		c.fail(path+"/style", "must be primary or danger")
	}
}

// textObject checks a {"type":"plain_text"|"mrkdwn","text":…} object.
func (c *blockChecker) textObject(path string, v any, limit int) {
	m, ok := v.(map[string]any)
	if !ok {
		c.fail(path, "must be a text object")
		return
	}
	if t := m["type"]; t != "plain_text" && t != "mrkdwn" {
		c.fail(path+"/type", "must be plain_text or mrkdwn")
	}
	text, _ := m["text"].(string)
	if text == "" {
		c.fail(path+"/text", "must be more than 0 characters")
	}
	c.maxString(path+"/text", m["text"], limit)
}

func (c *blockChecker) maxString(path string, v any, limit int) {
	if v == nil {
		return
	}
	s, ok := v.(string)
	if !ok {
		c.fail(path, "must be a string")
		return
	}
	if utf8.RuneCountInString(s) > limit {
		c.fail(path, "must be less than %d characters", limit+1)
	}
}
