package fakeslack

import (
	"fmt"
	"strings"
	"testing"
)

func TestValidateMessageBlocks(t *testing.T) {
	button := func(fields string) string {
		return `[{"type":"actions","block_id":"b","elements":[{"type":"button","action_id":"a","text":{"type":"plain_text","text":"ok"}` + fields + `}]}]`
	}
	section := func(text string) string {
		return fmt.Sprintf(`{"type":"section","text":{"type":"mrkdwn","text":%q}}`, text)
	}
	repeat := func(item string, n int) string {
		return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
	}
	fields := func(n, size int) string {
		f := fmt.Sprintf(`{"type":"mrkdwn","text":%q}`, strings.Repeat("f", size))
		return `[{"type":"section","fields":` + repeat(f, n) + `}]`
	}
	buttons := func(n int) string {
		var els []string
		for i := range n {
			els = append(els, fmt.Sprintf(`{"type":"button","action_id":"a%d","text":{"type":"plain_text","text":"x"}}`, i))
		}
		return `[{"type":"actions","elements":[` + strings.Join(els, ",") + `]}]`
	}
	long := func(n int) string { return strings.Repeat("x", n) }
	options := func(typ, values string) string {
		return `[{"type":"actions","elements":[` + element(typ, "e", values) + `]}]`
	}

	tests := []struct {
		name, blocks, want string
	}{
		{"empty", "", ""},
		{"valid button", button(`,"value":"v","style":"primary"`), ""},
		{"not JSON", "{", "invalid_blocks"},
		{"object instead of array", `{"type":"divider"}`, "invalid_blocks"},
		{"block without type", `[{}]`, "invalid_blocks"},
		{"50 blocks", repeat(`{"type":"divider"}`, 50), ""},
		{"51 blocks", repeat(`{"type":"divider"}`, 51), "invalid_blocks"},
		{"button text 75", strings.Replace(button(""), `"ok"`, fmt.Sprintf("%q", long(75)), 1), ""},
		{"button text 76", strings.Replace(button(""), `"ok"`, fmt.Sprintf("%q", long(76)), 1), "invalid_blocks"},
		{"action_id 256", strings.Replace(button(""), `"action_id":"a"`, fmt.Sprintf(`"action_id":%q`, long(256)), 1), "invalid_blocks"},
		{"value 2000", button(fmt.Sprintf(`,"value":%q`, long(2000))), ""},
		{"value 2001", button(fmt.Sprintf(`,"value":%q`, long(2001))), "invalid_blocks"},
		{"bad style", button(`,"style":"green"`), "invalid_blocks"},
		{"block_id 256", fmt.Sprintf(`[{"type":"divider","block_id":%q}]`, long(256)), "invalid_blocks"},
		{"duplicate block_id", `[{"type":"divider","block_id":"x"},{"type":"divider","block_id":"x"}]`, "invalid_blocks"},
		{"duplicate action_id in a block", `[{"type":"actions","elements":[{"type":"button","action_id":"a","text":{"type":"plain_text","text":"1"}},{"type":"button","action_id":"a","text":{"type":"plain_text","text":"2"}}]}]`, "invalid_blocks"},
		{"section text 3000", "[" + section(long(3000)) + "]", ""},
		{"section text 3001", "[" + section(long(3001)) + "]", "invalid_blocks"},
		{"empty section text", "[" + section("") + "]", "invalid_blocks"},
		{"10 fields", fields(10, 10), ""},
		{"11 fields", fields(11, 10), "invalid_blocks"},
		{"field 2001", fields(1, 2001), "invalid_blocks"},
		{"header 150", fmt.Sprintf(`[{"type":"header","text":{"type":"plain_text","text":%q}}]`, long(150)), ""},
		{"header 151", fmt.Sprintf(`[{"type":"header","text":{"type":"plain_text","text":%q}}]`, long(151)), "invalid_blocks"},
		{"25 buttons", buttons(25), ""},
		{"26 buttons", buttons(26), "invalid_blocks"},
		{"empty actions", `[{"type":"actions","elements":[]}]`, "invalid_blocks"},
		{"over 13000 characters", repeat(section(long(2900)), 5), "msg_blocks_too_long"},
		{"unknown block types pass", `[{"type":"rich_text","elements":[]}]`, ""},
		{"distinct option values", options("radio_buttons", `"a","b","c"`), ""},
		{"radio buttons sharing a value", options("radio_buttons", `"a","b","a"`), "invalid_blocks"},
		{"checkboxes sharing a value", options("checkboxes", `"a","a"`), "invalid_blocks"},
		{"static select sharing a value", options("static_select", `"a","a"`), "invalid_blocks"},
		{"multi select sharing a value", options("multi_static_select", `"a","a"`), "invalid_blocks"},
		{"overflow sharing a value", options("overflow", `"a","a"`), "invalid_blocks"},
		{"option groups sharing a value", `[{"type":"section","text":{"type":"mrkdwn","text":"t"},"accessory":{"type":"static_select","action_id":"s","option_groups":[` +
			`{"label":{"type":"plain_text","text":"g1"},"options":[` + option("a") + `]},` +
			`{"label":{"type":"plain_text","text":"g2"},"options":[` + option("a") + `]}]}}]`, "invalid_blocks"},
		{"overflow of 5", options("overflow", `"a","b","c","d","e"`), ""},
		{"overflow of 6", options("overflow", `"a","b","c","d","e","f"`), "invalid_blocks"},
		{"confirm dialog", button(confirm("Sure?", "Publishes draft 2 now.", "Yes", "No")), ""},
		{"confirm title 101", button(confirm(long(101), "t", "Yes", "No")), "invalid_blocks"},
		{"confirm text 301", button(confirm("Sure?", long(301), "Yes", "No")), "invalid_blocks"},
		{"confirm button 31", button(confirm("Sure?", "t", long(31), "No")), "invalid_blocks"},
		{"confirm deny 31", button(confirm("Sure?", "t", "Yes", long(31))), "invalid_blocks"},
		{"confirm without deny", button(`,"confirm":{"title":{"type":"plain_text","text":"a"},"text":{"type":"mrkdwn","text":"b"},"confirm":{"type":"plain_text","text":"c"}}`), "invalid_blocks"},
		{"confirm title in mrkdwn", button(`,"confirm":{"title":{"type":"mrkdwn","text":"a"},"text":{"type":"mrkdwn","text":"b"},"confirm":{"type":"plain_text","text":"c"},"deny":{"type":"plain_text","text":"d"}}`), "invalid_blocks"},
		{"same value in two elements", `[{"type":"actions","elements":[` + element("static_select", "s1", `"a"`) + `,` + element("static_select", "s2", `"a"`) + `]}]`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, e := validateMessageBlocks(tt.blocks)
			got := ""
			if e != nil {
				got = e.code
			}
			if got != tt.want {
				t.Errorf("validateMessageBlocks = %q (%v), want %q", got, e, tt.want)
			}
		})
	}
}

func option(value string) string {
	return fmt.Sprintf(`{"text":{"type":"plain_text","text":%q},"value":%q}`, value, value)
}

// element is a choice element whose options have the values, given as a
// comma-separated list of JSON strings.
func element(typ, actionID, values string) string {
	var opts []string
	for _, v := range strings.Split(values, ",") {
		opts = append(opts, option(strings.Trim(v, `"`)))
	}
	return fmt.Sprintf(`{"type":%q,"action_id":%q,"options":[%s]}`, typ, actionID, strings.Join(opts, ","))
}

// confirm is a button's confirm dialog, as JSON fields to append.
func confirm(title, text, yes, no string) string {
	return fmt.Sprintf(`,"confirm":{"title":{"type":"plain_text","text":%q},"text":{"type":"mrkdwn","text":%q},"confirm":{"type":"plain_text","text":%q},"deny":{"type":"plain_text","text":%q}}`, title, text, yes, no)
}
