package blocks

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestJSONLenMatchesEncoder(t *testing.T) {
	inputs := []string{"", "plain", `"quoted" \ back`, "a < b && c > d", "tab\tnew\nline\r\b\f\x00\x1f", "\u2028\u2029",
		"é漢😀", "bad \xff byte", "\ufffd"}
	for r := rune(0); r < 0x3000; r++ {
		inputs = append(inputs, string(r))
	}
	for _, s := range inputs {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := jsonLen(s), utf8.RuneCount(b)-2; got != want {
			t.Errorf("jsonLen(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestFit(t *testing.T) {
	tests := []struct {
		name    string
		p       part
		jsonMax int
		want    string
		wantCut bool
	}{
		{"fits", part{text: "a < b", kind: plainText, max: 20}, 0, "a &lt; b", false},
		{"cut after escaping", part{text: "a < b", kind: plainText, max: 6}, 0, "a…", true},
		{"never half an entity", part{text: "ab&cd", kind: plainText, max: 8}, 0, "ab&amp;…", true},
		{"entity that does not fit is dropped", part{text: "ab&cd", kind: plainText, max: 6}, 0, "ab…", true},
		{"markup counts", part{before: "*x*\n", text: "hello world", kind: plainText, max: 11}, 0, "*x*\nhello…", true},
		{"markup after", part{before: "*", text: "abcdef", after: "*", kind: plainText, max: 6}, 0, "*abc…*", true},
		{"runes not bytes", part{text: "漢字😀😀😀", kind: plainText, max: 4}, 0, "漢字😀…", true},
		{"json budget", part{text: "&&&&", kind: plainText, max: 100}, 21, "&amp;&amp;…", true},
		{"mrkdwn link whole", part{text: "see <https://example.com|the docs> now", max: 20}, 0, "see…", true},
		{"mrkdwn entity whole", part{text: "x &amp; y", max: 8}, 0, "x &amp;…", true},
		{"mrkdwn stray bracket escaped", part{text: "a < b and more", max: 9}, 0, "a &lt; b…", true},
		{"quoted lines", part{before: "> ", text: "a\nb<", kind: quotedText, max: 100}, 0, "> a\n> b&lt;", false},
		{"quoted cut keeps markup whole", part{before: "> ", text: "ab\ncd", kind: quotedText, max: 6}, 0, "> ab…", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := tt.p.render(tt.jsonMax)
			if got != tt.want || cut != tt.wantCut {
				t.Errorf("render = %q, %v; want %q, %v", got, cut, tt.want, tt.wantCut)
			}
			if n := utf8.RuneCountInString(got); n > tt.p.max {
				t.Errorf("%q is %d characters, over %d", got, n, tt.p.max)
			}
			if tt.jsonMax > 0 {
				if n := jsonLen(strings.TrimPrefix(got, tt.p.before)); n > tt.jsonMax {
					t.Errorf("%q takes %d characters of JSON, over %d", got, n, tt.jsonMax)
				}
			}
		})
	}
}

func TestFairShare(t *testing.T) {
	tests := []struct {
		sizes []int
		avail int
		want  int
	}{
		{[]int{10, 20}, 100, 90},
		{[]int{10, 100, 100}, 110, 50},
		{[]int{5, 5, 1000}, 40, 30},
		{[]int{30, 30}, 10, 5},
		{nil, 10, 10},
	}
	for _, tt := range tests {
		if got := fairShare(tt.sizes, tt.avail); got != tt.want {
			t.Errorf("fairShare(%v, %d) = %d, want %d", tt.sizes, tt.avail, got, tt.want)
		}
	}
}
