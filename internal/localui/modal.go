package localui

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// modalView is a modal as the app sent it with views.open or views.update.
type modalView struct {
	Type   string      `json:"type"`
	Title  *textObject `json:"title"`
	Submit *textObject `json:"submit"`
	Close  *textObject `json:"close"`
	Blocks []block     `json:"blocks"`
}

// Messages Slack shows in a modal before sending a submission.
const (
	errRequired = "Please complete this required field."
	errTooShort = "Please enter at least %d characters."
	errTooLong  = "Please enter no more than %d characters."
)

// modal renders the view a person has open as a form. Inputs are named "in-<index of the
// block>"; a radio button's or select option's value is its index. errs are shown under their
// blocks, as Slack shows a submission's response_action "errors".
func (r *renderer) modal(v fakeslack.View) string {
	var m modalView
	if err := json.Unmarshal(v.View, &m); err != nil {
		return `<div class="modal-error">The app's view cannot be read: ` + html.EscapeString(err.Error()) + `</div>`
	}
	title, submit, closeText := "", "", "Cancel"
	if m.Title != nil {
		title = m.Title.Text
	}
	if m.Submit != nil {
		submit = m.Submit.Text
	}
	if m.Close != nil {
		closeText = m.Close.Text
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<form class="modal" data-view-id="%s" data-hash="%s" novalidate>`, attr(v.ID), attr(v.Hash))
	fmt.Fprintf(&b, `<header class="modal-head"><h2>%s</h2><button type="button" class="modal-x" data-close title="Close">×</button></header>`, plainText(title))
	b.WriteString(`<div class="modal-body">`)
	for i, bl := range m.Blocks {
		if bl.Type != "input" {
			b.WriteString(r.block(bl, i))
			continue
		}
		b.WriteString(r.input(bl, i, v.Errors[bl.BlockID]))
	}
	b.WriteString(`<div class="modal-error" role="alert" hidden></div></div>`)
	fmt.Fprintf(&b, `<footer class="modal-foot"><button type="button" class="btn" data-close>%s</button>`, plainText(closeText))
	if submit != "" {
		fmt.Fprintf(&b, `<button type="submit" class="btn primary">%s</button>`, plainText(submit))
	}
	b.WriteString(`</footer></form>`)
	return b.String()
}

// input renders an input block with its label, element, hint and error.
func (r *renderer) input(bl block, index int, errText string) string {
	name := "in-" + strconv.Itoa(index)
	var b strings.Builder
	class := "b-input"
	if errText != "" {
		class += " has-error"
	}
	fmt.Fprintf(&b, `<div class="%s" data-block-id="%s">`, class, attr(bl.BlockID))
	label := ""
	if bl.Label != nil {
		label = bl.Label.Text
	}
	fmt.Fprintf(&b, `<label class="b-label" for="%s">%s`, name, plainText(label))
	if bl.Optional {
		b.WriteString(` <span class="optional">(optional)</span>`)
	}
	b.WriteString(`</label>`)
	if bl.Element == nil {
		b.WriteString(unsupported("input without an element"))
	} else {
		b.WriteString(r.inputElement(*bl.Element, name))
	}
	if bl.Hint != nil {
		b.WriteString(`<div class="b-hint">` + plainText(bl.Hint.Text) + `</div>`)
	}
	fmt.Fprintf(&b, `<div class="b-error" role="alert">%s</div></div>`, html.EscapeString(errText))
	return b.String()
}

// inputElement renders an input's element as a form control. A users_select offers the
// workspace's people, as Slack's picker offers the workspace's members.
func (r *renderer) inputElement(e block, name string) string {
	var b strings.Builder
	placeholder := ""
	if e.Placeholder != nil {
		placeholder = e.Placeholder.Text
	}
	switch e.Type {
	case "plain_text_input":
		limits := ""
		if e.MaxLength > 0 {
			limits += fmt.Sprintf(` maxlength="%d"`, e.MaxLength)
		}
		if e.MinLength > 0 {
			limits += fmt.Sprintf(` minlength="%d"`, e.MinLength)
		}
		if e.Multiline {
			fmt.Fprintf(&b, `<textarea id="%s" name="%s" rows="4" placeholder="%s"%s>%s</textarea>`,
				name, name, attr(placeholder), limits, html.EscapeString(e.InitialValue))
		} else {
			fmt.Fprintf(&b, `<input type="text" id="%s" name="%s" placeholder="%s" value="%s"%s>`,
				name, name, attr(placeholder), attr(e.InitialValue), limits)
		}
	case "radio_buttons", "checkboxes":
		kind := "radio"
		if e.Type == "checkboxes" {
			kind = "checkbox"
		}
		fmt.Fprintf(&b, `<div class="b-choices" id="%s">`, name)
		for i, o := range e.Options {
			checked := ""
			if isInitial(e, o) {
				checked = " checked"
			}
			fmt.Fprintf(&b, `<label class="b-choice"><input type="%s" name="%s" value="%d"%s> <span>%s</span>`,
				kind, name, i, checked, plainText(o.Text.Text))
			if o.Description != nil {
				b.WriteString(`<span class="b-choice-desc">` + plainText(o.Description.Text) + `</span>`)
			}
			b.WriteString(`</label>`)
		}
		b.WriteString(`</div>`)
	case "static_select":
		fmt.Fprintf(&b, `<select id="%s" name="%s"><option value="">%s</option>`, name, name, html.EscapeString(placeholder))
		n := 0
		writeOption := func(o option) {
			selected := ""
			if isInitial(e, o) {
				selected = " selected"
			}
			fmt.Fprintf(&b, `<option value="%d"%s>%s</option>`, n, selected, html.EscapeString(o.Text.Text))
			n++
		}
		for _, o := range e.Options {
			writeOption(o)
		}
		for _, g := range e.OptionGroups {
			fmt.Fprintf(&b, `<optgroup label="%s">`, attr(g.Label.Text))
			for _, o := range g.Options {
				writeOption(o)
			}
			b.WriteString(`</optgroup>`)
		}
		b.WriteString(`</select>`)
	case "users_select":
		fmt.Fprintf(&b, `<select id="%s" name="%s" class="b-users"><option value="">%s</option>`, name, name, html.EscapeString(placeholder))
		for _, p := range r.ws.People {
			selected := ""
			if e.InitialUser == p.ID {
				selected = " selected"
			}
			fmt.Fprintf(&b, `<option value="%s"%s>%s (@%s)</option>`, attr(p.ID), selected, html.EscapeString(p.RealName), html.EscapeString(p.Name))
		}
		b.WriteString(`</select>`)
	default:
		b.WriteString(unsupported(e.Type + " input"))
	}
	return b.String()
}

func isInitial(e block, o option) bool {
	if e.InitialOption != nil && e.InitialOption.Value == o.Value {
		return true
	}
	for _, i := range e.InitialOpts {
		if i.Value == o.Value {
			return true
		}
	}
	return false
}

// submission reads a submitted modal form into the view's state.values, shaped as Slack sends
// them (block_id → action_id → element state). errs, by block_id, are what Slack itself answers
// before sending anything: a required input left empty, text shorter than min_length or longer
// than max_length. A form that does not fit the view (an option that does not exist, a user
// who is not one of the workspace's people) is an error.
func submission(view json.RawMessage, form url.Values, ws Workspace) (values map[string]map[string]any, errs map[string]string, err error) {
	var m struct {
		Blocks []map[string]any `json:"blocks"`
	}
	if err := json.Unmarshal(view, &m); err != nil {
		return nil, nil, fmt.Errorf("read the view: %w", err)
	}
	values = map[string]map[string]any{}
	errs = map[string]string{}
	for i, bl := range m.Blocks {
		if bl["type"] != "input" {
			continue
		}
		blockID, _ := bl["block_id"].(string)
		optional, _ := bl["optional"].(bool)
		el, _ := bl["element"].(map[string]any)
		typ, _ := el["type"].(string)
		actionID, _ := el["action_id"].(string)
		name := "in-" + strconv.Itoa(i)
		state := map[string]any{"type": typ}
		empty := true
		switch typ {
		case "plain_text_input":
			text := form.Get(name)
			state["value"] = nil
			if text != "" {
				state["value"] = text
			}
			if strings.TrimSpace(text) != "" {
				empty = false
				n := utf8.RuneCountInString(text)
				if min, _ := el["min_length"].(float64); n < int(min) {
					errs[blockID] = fmt.Sprintf(errTooShort, int(min))
				}
				if max, _ := el["max_length"].(float64); max > 0 && n > int(max) {
					errs[blockID] = fmt.Sprintf(errTooLong, int(max))
				}
			}
		case "radio_buttons", "static_select":
			state["selected_option"] = nil
			if v := form.Get(name); v != "" {
				o, err := pickOption(el, v)
				if err != nil {
					return nil, nil, fmt.Errorf("input %q: %w", blockID, err)
				}
				state["selected_option"] = o
				empty = false
			}
		case "users_select":
			state["selected_user"] = nil
			if v := form.Get(name); v != "" {
				if _, ok := ws.Person(v); !ok {
					return nil, nil, fmt.Errorf("input %q: %q is not one of the workspace's people", blockID, v)
				}
				state["selected_user"] = v
				empty = false
			}
		case "checkboxes":
			selected := []any{}
			for _, v := range form[name] {
				o, err := pickOption(el, v)
				if err != nil {
					return nil, nil, fmt.Errorf("input %q: %w", blockID, err)
				}
				selected = append(selected, o)
			}
			state["selected_options"] = selected
			empty = len(selected) == 0
		default:
			continue // shown as unsupported; Slack would send its state, the stand-in cannot
		}
		if empty && !optional {
			errs[blockID] = errRequired
		}
		values[blockID] = map[string]any{actionID: state}
	}
	if len(errs) == 0 {
		errs = nil
	}
	return values, errs, nil
}

// pickOption returns the option with the index (counted over options, then option groups) as
// the view defines it.
func pickOption(el map[string]any, index string) (any, error) {
	n, err := strconv.Atoi(index)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("no option %q", index)
	}
	all, _ := el["options"].([]any)
	groups, _ := el["option_groups"].([]any)
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		opts, _ := gm["options"].([]any)
		all = append(all, opts...)
	}
	if n >= len(all) {
		return nil, fmt.Errorf("no option %q", index)
	}
	return all[n], nil
}
