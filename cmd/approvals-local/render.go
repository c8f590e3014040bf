package main

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// block is the part of a Block Kit block the terminal rendering needs.
type block struct {
	Type     string       `json:"type"`
	Text     *textObject  `json:"text"`
	Fields   []textObject `json:"fields"`
	Elements []element    `json:"elements"`
}

type textObject struct {
	Text string `json:"text"`
}

// element is a button (text is an object) or a context element (text is
// a string).
type element struct {
	Type        string          `json:"type"`
	Text        json.RawMessage `json:"text"`
	Placeholder *textObject     `json:"placeholder"`
	Options     []struct {
		Text textObject `json:"text"`
	} `json:"options"`
}

func (e element) text() string {
	var s string
	if json.Unmarshal(e.Text, &s) == nil {
		return s
	}
	var t textObject
	_ = json.Unmarshal(e.Text, &t)
	return t.Text
}

var (
	userMention  = regexp.MustCompile(`<@([UW][A-Z0-9]+)>`)
	groupMention = regexp.MustCompile(`<!subteam\^(S[A-Z0-9]+)(\|[^>]*)?>`)
	dateToken    = regexp.MustCompile(`<!date\^[0-9]+\^[^|]*\|([^>]*)>`)
	link         = regexp.MustCompile(`<(https?://[^|>]+)\|([^>]*)>`)
)

// plain turns Slack mrkdwn markup into what a person would read.
func plain(s string, names map[string]string) string {
	s = userMention.ReplaceAllStringFunc(s, func(m string) string {
		id := userMention.FindStringSubmatch(m)[1]
		if n, ok := names[id]; ok {
			return "@" + n
		}
		return "@" + id
	})
	s = groupMention.ReplaceAllStringFunc(s, func(m string) string {
		id := groupMention.FindStringSubmatch(m)[1]
		if n, ok := names[id]; ok {
			return "@" + n
		}
		return "@" + id
	})
	s = dateToken.ReplaceAllString(s, "$1")
	s = link.ReplaceAllString(s, "$2")
	return s
}

// render writes a message's blocks as indented text, buttons in brackets.
func render(w io.Writer, indent string, blocks json.RawMessage, fallback string, names map[string]string) {
	var bs []block
	if len(blocks) == 0 || json.Unmarshal(blocks, &bs) != nil || len(bs) == 0 {
		fmt.Fprintf(w, "%s%s\n", indent, plain(fallback, names))
		return
	}
	line := func(s string) {
		for _, l := range strings.Split(plain(s, names), "\n") {
			fmt.Fprintf(w, "%s%s\n", indent, l)
		}
	}
	for _, b := range bs {
		switch b.Type {
		case "header":
			if b.Text != nil {
				line("■ " + b.Text.Text)
			}
		case "section":
			if b.Text != nil {
				line(b.Text.Text)
			}
			for _, f := range b.Fields {
				line("  " + strings.ReplaceAll(f.Text, "\n", " "))
			}
		case "context":
			var parts []string
			for _, e := range b.Elements {
				if t := e.text(); t != "" {
					parts = append(parts, t)
				}
			}
			line(strings.Join(parts, " · "))
		case "actions":
			var buttons []string
			for _, e := range b.Elements {
				var options []string
				for _, o := range e.Options {
					options = append(options, o.Text.Text)
				}
				switch e.Type {
				case "button":
					buttons = append(buttons, "["+e.text()+"]")
				case "overflow":
					buttons = append(buttons, "[⋯ "+strings.Join(options, " · ")+"]")
				case "static_select":
					label := ""
					if e.Placeholder != nil {
						label = e.Placeholder.Text + ": "
					}
					buttons = append(buttons, "[▾ "+label+strings.Join(options, " · ")+"]")
				}
			}
			line(strings.Join(buttons, " "))
		case "divider":
			line("────────")
		}
	}
}
