package blocks

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/slack-go/slack"
)

// Slack's limits on what the builders send, counted on the text as sent:
// after escaping and after the markup around the author's text.
const (
	maxSectionLen = 3000 // section text
	maxFieldLen   = 2000 // one section field
	maxLabelLen   = 150  // an escaped field label, so ten labels cannot fill a message
	maxHeaderLen  = 150  // a header block's plain_text
	maxOptionLen  = 75   // a radio button's plain_text
	// maxBlocksLen is the budget for a message's blocks as the JSON slack-go
	// sends (which spells <, > and & as \u003c…). Slack refuses 13,000.
	maxBlocksLen = 12000
	// maxReasonJSON bounds the reason or feedback in an outcome, so the
	// request's own text keeps room beside it.
	maxReasonJSON = 4000
)

const ellipsis = "…"

// textKind is how the author's text is put into mrkdwn.
type textKind int

const (
	authorMrkdwn textKind = iota // as written: the author formats it
	plainText                    // escaped, so it shows literally
	quotedText                   // escaped, every line block-quoted
)

// part is text inside a block that may be shortened: the author's text
// between markup the builder adds. The markup is kept whole.
type part struct {
	before, text, after string
	kind                textKind
	max                 int // Slack's limit on the whole block text
}

// render fits p into its block's limit and, when jsonMax > 0, the author's
// text into jsonMax characters of JSON. It reports whether text was cut.
func (p part) render(jsonMax int) (string, bool) {
	room := p.max - utf8.RuneCountInString(p.before) - utf8.RuneCountInString(p.after)
	var units []string
	switch p.kind {
	case authorMrkdwn:
		units = mrkdwnUnits(p.text)
	case plainText:
		units = escapedUnits(p.text)
	case quotedText:
		units = escapedUnits(p.text)
		for i, u := range units {
			if u == "\n" {
				units[i] = "\n> "
			}
		}
	}
	text, cut := fit(units, max(room, 1), jsonMax)
	return p.before + text + p.after, cut
}

// textJSONLen is the JSON length of the author's text once rendered.
func (p part) textJSONLen() int {
	s, _ := p.render(0)
	return jsonLen(s) - jsonLen(p.before) - jsonLen(p.after)
}

// fitEscaped escapes s and cuts it to at most n characters.
func fitEscaped(s string, n int) string {
	text, _ := fit(escapedUnits(s), n, 0)
	return text
}

// fit joins units, cutting before the first unit that would take the text
// over n characters (or jsonMax characters of JSON, when jsonMax > 0) and
// ending the cut text with "…". A unit is never split, so neither a rune nor
// an entity such as &amp; nor a link is cut in half.
func fit(units []string, n, jsonMax int) (string, bool) {
	runes, size := 0, 0
	for _, u := range units {
		runes += utf8.RuneCountInString(u)
		size += jsonLen(u)
	}
	if runes <= n && (jsonMax <= 0 || size <= jsonMax) {
		return strings.Join(units, ""), false
	}
	var b strings.Builder
	runes, size = 1, jsonLen(ellipsis)
	for _, u := range units {
		r, j := utf8.RuneCountInString(u), jsonLen(u)
		if runes+r > n || (jsonMax > 0 && size+j > jsonMax) {
			break
		}
		b.WriteString(u)
		runes, size = runes+r, size+j
	}
	return strings.TrimRightFunc(b.String(), unicode.IsSpace) + ellipsis, true
}

// escapedUnits is s escaped, one unit per rune.
func escapedUnits(s string) []string {
	units := make([]string, 0, len(s))
	for _, r := range s {
		units = append(units, Escape(string(r)))
	}
	return units
}

// mrkdwnUnits splits the author's mrkdwn into runes, except that a link or
// mention (<…>) and an entity (&amp;) stay whole. Markup that authorMarkup
// refuses (a broadcast such as <!here>) and a lone "<" are escaped, so they
// show literally.
func mrkdwnUnits(s string) []string {
	units := make([]string, 0, len(s))
	for len(s) > 0 {
		_, n := utf8.DecodeRuneInString(s)
		switch s[0] {
		case '<':
			if end := strings.IndexAny(s[1:], "<>\n"); end >= 0 && s[1+end] == '>' {
				n = end + 2
			}
		case '&':
			if end := strings.IndexByte(s, ';'); end > 1 && end <= 10 && isEntityName(s[1:end]) {
				n = end + 1
			}
		}
		u := s[:n]
		if u[0] == '<' && !authorMarkup(u) {
			u = Escape(u)
		}
		units, s = append(units, u), s[n:]
	}
	return units
}

func isEntityName(s string) bool {
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '#') {
			return false
		}
	}
	return true
}

// jsonLen is how many characters s takes inside a JSON string as
// encoding/json writes it (HTML characters escaped), which is how slack-go
// sends blocks and how Slack measures them.
func jsonLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t' || r == '\b' || r == '\f':
			n += 2
		case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n++
		}
	}
	return n
}

// blocksLen is the length of blocks as slack-go sends them.
func blocksLen(blocks ...slack.Block) int {
	b, err := json.Marshal(blocks)
	if err != nil {
		return 0
	}
	return utf8.RuneCount(b)
}

// fitParts renders parts, with build turning the rendered texts into
// blocks, so that the blocks take at most room characters of JSON. When
// text is cut, note (if not nil) is added after the blocks. Text that fits
// is never cut; when the whole does not fit, the longest texts are cut to
// a common length (a fair share), so short ones stay whole.
func fitParts(parts []part, room int, note slack.Block, build func([]string) []slack.Block) []slack.Block {
	texts, cut := renderAll(parts, 0)
	blocks := withNote(build(texts), note, cut)
	if blocksLen(blocks...) <= room {
		return blocks
	}
	sizes := make([]int, len(parts))
	total := 0
	for i, p := range parts {
		sizes[i] = p.textJSONLen()
		total += sizes[i]
	}
	overhead := blocksLen(withNote(build(texts), note, true)...) - total
	// The loop guards against markup counted differently than expected: each
	// round gives the texts less room until the blocks fit.
	for avail := room - overhead; ; avail -= max(avail/10, 1) {
		share := max(fairShare(sizes, max(avail, len(parts))), 1)
		texts, _ = renderAll(parts, share)
		blocks = withNote(build(texts), note, true)
		if blocksLen(blocks...) <= room || share <= 1 {
			return blocks
		}
	}
}

func renderAll(parts []part, jsonMax int) ([]string, bool) {
	texts := make([]string, len(parts))
	anyCut := false
	for i, p := range parts {
		var cut bool
		texts[i], cut = p.render(jsonMax)
		anyCut = anyCut || cut
	}
	return texts, anyCut
}

func withNote(blocks []slack.Block, note slack.Block, cut bool) []slack.Block {
	if cut && note != nil {
		return append(blocks, note)
	}
	return blocks
}

// fairShare is the largest share such that giving each size at most share
// adds up to at most avail.
func fairShare(sizes []int, avail int) int {
	if len(sizes) == 0 {
		return avail
	}
	sorted := slices.Sorted(slices.Values(sizes))
	for i, s := range sorted {
		rest := len(sorted) - i
		if s*rest > avail {
			return avail / rest
		}
		avail -= s
	}
	return avail + sorted[len(sorted)-1]
}
