package sfnexec

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

// Masked replaces a task token wherever the panel would show one.
const Masked = "‹task token hidden›"

// details renders the details of a history event as indented JSON: the event's one
// *EventDetails member, with AWS's member names (camelCase), unset members left out, JSON text
// members (input, output, parameters) shown as JSON, and task tokens masked.
func details(ev types.HistoryEvent) string {
	v := reflect.ValueOf(ev)
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !strings.HasSuffix(f.Name, "EventDetails") || v.Field(i).IsNil() {
			continue
		}
		raw, err := json.Marshal(v.Field(i).Interface())
		if err != nil {
			return ""
		}
		n, err := parse(raw)
		if err != nil {
			return ""
		}
		return n.fromSDK().masked().indent()
	}
	return ""
}

// maskJSON indents JSON text with its task tokens masked; text that is not JSON is returned as
// it is.
func maskJSON(text string) string {
	if strings.TrimSpace(text) == "" {
		return text
	}
	n, err := parse([]byte(text))
	if err != nil {
		return text
	}
	return n.masked().indent()
}

// node is a JSON value that keeps the order of object members.
type node struct {
	members []member        // an object
	items   []*node         // an array
	scalar  json.RawMessage // anything else
	isArr   bool
}

type member struct {
	key   string
	value *node
}

func parse(b []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return n, nil
}

func parseValue(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			n := &node{isArr: true, items: []*node{}}
			for dec.More() {
				item, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, item)
			}
			_, err := dec.Token()
			return n, err
		}
		n := &node{members: []member{}}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, member{key: k.(string), value: v})
		}
		_, err := dec.Token()
		return n, err
	default:
		return &node{scalar: mustJSON(t)}, nil
	}
}

func (n *node) isObject() bool { return n.scalar == nil && !n.isArr }

func (n *node) str() (string, bool) {
	var s string
	if n.scalar == nil || json.Unmarshal(n.scalar, &s) != nil {
		return "", false
	}
	return s, true
}

// fromSDK turns an SDK struct's JSON into AWS's shape: camelCase member names, no null members,
// and JSON text members as JSON.
func (n *node) fromSDK() *node {
	switch {
	case n.isArr:
		for i, item := range n.items {
			n.items[i] = item.fromSDK()
		}
	case n.isObject():
		kept := n.members[:0]
		for _, m := range n.members {
			if string(m.value.scalar) == "null" {
				continue
			}
			r, size := utf8.DecodeRuneInString(m.key)
			m.key = string(unicode.ToLower(r)) + m.key[size:]
			if s, ok := m.value.str(); ok && (m.key == "input" || m.key == "output" || m.key == "parameters") {
				if inner, err := parse([]byte(s)); err == nil && inner.scalar == nil {
					m.value = inner
				}
			} else {
				m.value = m.value.fromSDK()
			}
			kept = append(kept, m)
		}
		n.members = kept
	}
	return n
}

// masked replaces the string values of task token members, and strings holding JSON with such
// members, wherever they are.
func (n *node) masked() *node {
	switch {
	case n.isArr:
		for _, item := range n.items {
			item.masked()
		}
	case n.isObject():
		for i, m := range n.members {
			if s, ok := m.value.str(); ok && isTokenKey(m.key) && s != "" {
				n.members[i].value = &node{scalar: mustJSON(Masked)}
				continue
			}
			m.value.masked()
		}
	default:
		if s, ok := n.str(); ok && strings.Contains(s, "\"") {
			if inner, err := parse([]byte(s)); err == nil && inner.scalar == nil {
				n.scalar = mustJSON(inner.masked().compact())
			}
		}
	}
	return n
}

// isTokenKey tells the members that carry a task token: "taskToken" (the notifier's payload and
// AWS's examples) and "token", in any case.
func isTokenKey(k string) bool {
	k = strings.ToLower(k)
	return k == "token" || strings.HasSuffix(k, "tasktoken")
}

func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func (n *node) write(b *strings.Builder, depth int, pretty bool) {
	newline := func(d int) {
		if pretty {
			b.WriteString("\n" + strings.Repeat("  ", d))
		}
	}
	switch {
	case n.isArr:
		if len(n.items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, item := range n.items {
			if i > 0 {
				b.WriteString(",")
			}
			newline(depth + 1)
			item.write(b, depth+1, pretty)
		}
		newline(depth)
		b.WriteString("]")
	case n.isObject():
		if len(n.members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i, m := range n.members {
			if i > 0 {
				b.WriteString(",")
			}
			newline(depth + 1)
			b.Write(mustJSON(m.key))
			b.WriteString(":")
			if pretty {
				b.WriteString(" ")
			}
			m.value.write(b, depth+1, pretty)
		}
		newline(depth)
		b.WriteString("}")
	default:
		b.Write(n.scalar)
	}
}

func (n *node) indent() string {
	var b strings.Builder
	n.write(&b, 0, true)
	return b.String()
}

func (n *node) compact() string {
	var b strings.Builder
	n.write(&b, 0, false)
	return b.String()
}
