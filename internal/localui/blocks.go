package localui

import (
	"encoding/json"
	"html"
	"strconv"
	"strings"
)

// block is a Block Kit block or element, as much of it as the stand-in renders.
type block struct {
	Type      string          `json:"type"`
	BlockID   string          `json:"block_id"`
	Text      json.RawMessage `json:"text"` // a text object; a string in context elements' old form
	Fields    []textObject    `json:"fields"`
	Accessory *block          `json:"accessory"`
	Elements  []block         `json:"elements"`

	// elements
	ActionID      string        `json:"action_id"`
	Value         string        `json:"value"`
	URL           string        `json:"url"`
	Style         string        `json:"style"`
	Confirm       *confirm      `json:"confirm"`
	AltText       string        `json:"alt_text"`
	ImageURL      string        `json:"image_url"`
	Title         *textObject   `json:"title"`
	Placeholder   *textObject   `json:"placeholder"`
	Options       []option      `json:"options"`
	OptionGroups  []optionGroup `json:"option_groups"`
	InitialOption *option       `json:"initial_option"`
	InitialOpts   []option      `json:"initial_options"`
	InitialValue  string        `json:"initial_value"`
	InitialUser   string        `json:"initial_user"`
	Multiline     bool          `json:"multiline"`
	MinLength     int           `json:"min_length"`
	MaxLength     int           `json:"max_length"`

	// input blocks
	Label    *textObject `json:"label"`
	Element  *block      `json:"element"`
	Hint     *textObject `json:"hint"`
	Optional bool        `json:"optional"`
}

type textObject struct {
	Type  string `json:"type"`
	Text  string `json:"text"`
	Emoji bool   `json:"emoji"`
}

type option struct {
	Text        textObject  `json:"text"`
	Value       string      `json:"value"`
	Description *textObject `json:"description"`
}

type optionGroup struct {
	Label   textObject `json:"label"`
	Options []option   `json:"options"`
}

type confirm struct {
	Title   *textObject `json:"title"`
	Text    *textObject `json:"text"`
	Confirm *textObject `json:"confirm"`
	Deny    *textObject `json:"deny"`
}

// textOf reads a block's text: a text object, or a bare string.
func (b block) textOf() (textObject, bool) {
	if len(b.Text) == 0 || string(b.Text) == "null" {
		return textObject{}, false
	}
	var t textObject
	if json.Unmarshal(b.Text, &t) == nil {
		return t, true
	}
	var s string
	if json.Unmarshal(b.Text, &s) == nil {
		return textObject{Type: b.Type, Text: s}, true
	}
	return textObject{}, false
}

// text renders a text object by its type.
func (r *renderer) text(t textObject) string {
	if t.Type == "mrkdwn" {
		return r.mrkdwn(t.Text)
	}
	return plainText(t.Text)
}

// message renders a message's blocks; without blocks (or with blocks it cannot read) it renders
// the text, as Slack does.
func (r *renderer) message(blocks json.RawMessage, text string) string {
	var list []block
	if len(blocks) == 0 || json.Unmarshal(blocks, &list) != nil || len(list) == 0 {
		return `<div class="b-text">` + r.mrkdwn(text) + `</div>`
	}
	var b strings.Builder
	for i, bl := range list {
		b.WriteString(r.block(bl, i))
	}
	return b.String()
}

// block renders one layout block of a message or modal (input blocks are the modal's).
func (r *renderer) block(bl block, index int) string {
	blockID := bl.BlockID
	if blockID == "" {
		blockID = "fakeslack-block-" + strconv.Itoa(index) // the ID the fake gives it in clicks
	}
	var b strings.Builder
	switch bl.Type {
	case "header":
		t, _ := bl.textOf()
		b.WriteString(`<h3 class="b-header">` + plainText(t.Text) + `</h3>`)
	case "section":
		b.WriteString(`<div class="b-section"><div class="b-section-body">`)
		if t, ok := bl.textOf(); ok {
			b.WriteString(`<div class="b-section-text">` + r.text(t) + `</div>`)
		}
		if len(bl.Fields) > 0 {
			b.WriteString(`<div class="b-fields">`)
			for _, f := range bl.Fields {
				b.WriteString(`<div class="b-field">` + r.text(f) + `</div>`)
			}
			b.WriteString(`</div>`)
		}
		b.WriteString(`</div>`)
		if bl.Accessory != nil {
			b.WriteString(`<div class="b-accessory">` + r.element(*bl.Accessory, blockID) + `</div>`)
		}
		b.WriteString(`</div>`)
	case "divider":
		b.WriteString(`<hr class="b-divider">`)
	case "context":
		b.WriteString(`<div class="b-context">`)
		for _, e := range bl.Elements {
			switch e.Type {
			case "image":
				b.WriteString(image(e, "b-context-image"))
			default:
				t, _ := e.textOf()
				b.WriteString(`<span class="b-context-item">` + r.text(t) + `</span>`)
			}
		}
		b.WriteString(`</div>`)
	case "actions":
		b.WriteString(`<div class="b-actions" data-block-id="` + attr(blockID) + `">`)
		for _, e := range bl.Elements {
			b.WriteString(r.element(e, blockID))
		}
		b.WriteString(`</div>`)
	case "image":
		b.WriteString(`<figure class="b-image">`)
		if bl.Title != nil {
			b.WriteString(`<figcaption>` + plainText(bl.Title.Text) + `</figcaption>`)
		}
		b.WriteString(image(bl, "b-image-box") + `</figure>`)
	default:
		b.WriteString(unsupported(bl.Type + " block"))
	}
	return b.String()
}

// element renders an interactive element of a message: buttons, overflow menus and static
// selects act (a confirm dialog first, when the element has one); other elements are shown for
// their look.
func (r *renderer) element(e block, blockID string) string {
	confirmAttr := ""
	if e.Confirm != nil {
		confirmAttr = confirmAttrs(*e.Confirm)
	}
	switch e.Type {
	case "overflow":
		var b strings.Builder
		b.WriteString(`<span class="b-overflow"><button type="button" class="btn b-overflow-toggle" title="More actions" aria-haspopup="menu">⋯</button>`)
		b.WriteString(`<span class="b-menu" role="menu" hidden>`)
		for _, o := range e.Options {
			b.WriteString(`<button type="button" role="menuitem" class="b-menu-item" data-block-id="` + attr(blockID) + `" data-menu-id="` + attr(e.ActionID) +
				`" data-option="` + attr(o.Value) + `"` + confirmAttr + `>` + plainText(o.Text.Text) + `</button>`)
		}
		b.WriteString(`</span></span>`)
		return b.String()
	case "static_select":
		label := "Select"
		if e.Placeholder != nil {
			label = e.Placeholder.Text
		}
		var b strings.Builder
		b.WriteString(`<select class="b-select" data-block-id="` + attr(blockID) + `" data-menu-id="` + attr(e.ActionID) + `"` + confirmAttr + `>`)
		b.WriteString(`<option value="" selected disabled>` + html.EscapeString(label) + `</option>`)
		for _, o := range e.Options {
			b.WriteString(`<option value="` + attr(o.Value) + `">` + plainText(o.Text.Text) + `</option>`)
		}
		b.WriteString(`</select>`)
		return b.String()
	case "button":
		t, _ := e.textOf()
		class := "btn"
		if e.Style == "primary" || e.Style == "danger" {
			class += " " + e.Style
		}
		var b strings.Builder
		b.WriteString(`<button type="button" class="` + class + `" data-block-id="` + attr(blockID) +
			`" data-action-id="` + attr(e.ActionID) + `" data-value="` + attr(e.Value) + `"`)
		if e.URL != "" {
			b.WriteString(` data-url="` + attr(e.URL) + `"`)
		}
		b.WriteString(confirmAttr + `>` + plainText(t.Text) + `</button>`)
		return b.String()
	case "image":
		return image(e, "b-accessory-image")
	case "datepicker", "users_select", "conversations_select", "channels_select", "multi_static_select", "checkboxes", "radio_buttons":
		label := e.Type
		if e.Placeholder != nil {
			label = e.Placeholder.Text
		}
		return `<span class="btn disabled" title="` + attr(e.Type+": not interactive in the stand-in") + `">` + html.EscapeString(label) + ` ▾</span>`
	}
	return unsupported(e.Type + " element")
}

// confirmAttrs carries a confirm dialog to the page, which shows it as Slack does before the
// action is sent: its title, text (plain), and the two buttons' labels.
func confirmAttrs(c confirm) string {
	text := func(t *textObject, fallback string) string {
		if t == nil || t.Text == "" {
			return fallback
		}
		return t.Text
	}
	return ` data-confirm="` + attr(text(c.Text, "")) + `" data-confirm-title="` + attr(text(c.Title, "Are you sure?")) +
		`" data-confirm-yes="` + attr(text(c.Confirm, "Yes")) + `" data-confirm-no="` + attr(text(c.Deny, "Cancel")) + `"`
}

// image shows an image's alt text in a frame: the page loads nothing from elsewhere.
func image(e block, class string) string {
	alt := e.AltText
	if alt == "" {
		alt = "image"
	}
	return `<span class="` + class + `" title="` + attr(e.ImageURL) + `">🖼 ` + html.EscapeString(alt) + `</span>`
}

func unsupported(what string) string {
	return `<div class="b-unsupported">[` + html.EscapeString(what) + ` not shown by the stand-in]</div>`
}
