package localui

import (
	"fmt"
	"html"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// renderer turns Slack text (mrkdwn and plain_text) and Block Kit into HTML for one viewer. Every
// piece of text it is given is escaped; only the markup it writes itself is HTML.
type renderer struct {
	ws Workspace
	// me is the person viewing: mentions of them, and of their groups, are highlighted.
	me string
	// slackURL is the fake Slack's workspace URL: message links under it open in the page.
	slackURL string
}

// Placeholders stand for the <…> tokens of a text while its formatting is read: runes of the
// Private Use Area, which Slack text does not use (any in the input are replaced first).
const (
	tokenBase = '\uE000'
	maxTokens = 0x1000
)

// mrkdwn renders Slack mrkdwn: *bold*, _italic_, ~strike~, `code`, ```preformatted```, > quotes,
// links, user, group, channel and broadcast mentions, <!date^…> tokens and :emoji: names (those
// the stand-in knows, outside code). The three entities
// Slack escapes (&amp; &lt; &gt;) are read back as the characters they stand for.
func (r *renderer) mrkdwn(text string) string {
	var b strings.Builder
	parts := strings.Split(text, "```")
	if len(parts)%2 == 0 { // an unclosed ``` is literal text
		last := len(parts) - 1
		parts[last-1] += "```" + parts[last]
		parts = parts[:last]
	}
	for i, part := range parts {
		if i%2 == 1 {
			b.WriteString(`<pre class="pre">`)
			b.WriteString(r.literal(strings.TrimPrefix(part, "\n")))
			b.WriteString(`</pre>`)
			continue
		}
		b.WriteString(r.lines(part))
	}
	return b.String()
}

// lines renders text outside preformatted blocks, line by line; consecutive quoted lines form
// one quote.
func (r *renderer) lines(text string) string {
	var b strings.Builder
	lines := strings.Split(text, "\n")
	inQuote := false
	for i, line := range lines {
		quoted, ok := cutQuote(line)
		switch {
		case ok && !inQuote:
			b.WriteString(`<blockquote class="quote">`)
			inQuote = true
		case !ok && inQuote:
			b.WriteString(`</blockquote>`)
			inQuote = false
		case i > 0:
			b.WriteString("<br>")
		}
		if ok {
			line = quoted
		}
		b.WriteString(r.inline(line))
	}
	if inQuote {
		b.WriteString(`</blockquote>`)
	}
	return b.String()
}

// cutQuote strips the quote marker of a line: ">" as apps send it or "&gt;" as Slack stores
// what people type, and one space after it.
func cutQuote(line string) (string, bool) {
	for _, marker := range []string{"&gt;", ">"} {
		if rest, ok := strings.CutPrefix(line, marker); ok {
			return strings.TrimPrefix(rest, " "), true
		}
	}
	return line, false
}

// inline renders one line: tokens first, then code spans and emphasis over the rest.
func (r *renderer) inline(line string) string {
	text, tokens := r.tokenize(line)
	runes := []rune(decodeEntities(text))
	var b strings.Builder
	for i := 0; i < len(runes); {
		if runes[i] == '`' {
			if j := indexRune(runes, '`', i+1); j > i+1 {
				b.WriteString(`<code class="code">`)
				b.WriteString(r.plainRunes(runes[i+1:j], tokens))
				b.WriteString(`</code>`)
				i = j + 1
				continue
			}
		}
		j := i + 1
		for j < len(runes) && runes[j] != '`' {
			j++
		}
		b.WriteString(r.emphasis([]rune(emoji(string(runes[i:j]))), tokens))
		i = j
	}
	return b.String()
}

func indexRune(rs []rune, c rune, from int) int {
	for i := from; i < len(rs); i++ {
		if rs[i] == c {
			return i
		}
	}
	return -1
}

var emphasisTags = map[rune]string{'*': "strong", '_': "em", '~': "s"}

// emphasis renders *bold*, _italic_ and ~strike~, nested: a marker opens after the start, a
// space or punctuation and before a non-space; it closes after a non-space and before the end,
// a space or punctuation.
func (r *renderer) emphasis(rs []rune, tokens []string) string {
	var b strings.Builder
	start := 0
	for i := 0; i < len(rs); i++ {
		tag, ok := emphasisTags[rs[i]]
		if !ok || !canOpen(rs, i) {
			continue
		}
		j := i + 2
		for ; j < len(rs); j++ {
			if rs[j] == rs[i] && canClose(rs, j) {
				break
			}
		}
		if j >= len(rs) {
			continue
		}
		b.WriteString(r.plainRunes(rs[start:i], tokens))
		b.WriteString("<" + tag + ">")
		b.WriteString(r.emphasis(rs[i+1:j], tokens))
		b.WriteString("</" + tag + ">")
		start, i = j+1, j
	}
	b.WriteString(r.plainRunes(rs[start:], tokens))
	return b.String()
}

func canOpen(rs []rune, i int) bool {
	return (i == 0 || !isWord(rs[i-1])) && i+1 < len(rs) && !unicode.IsSpace(rs[i+1]) && rs[i+1] != rs[i]
}

func canClose(rs []rune, j int) bool {
	return !unicode.IsSpace(rs[j-1]) && (j+1 == len(rs) || !isWord(rs[j+1]))
}

func isWord(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }

// plainRunes escapes text and puts the rendered tokens back in place of their placeholders.
func (r *renderer) plainRunes(rs []rune, tokens []string) string {
	var b strings.Builder
	for _, c := range rs {
		if n := int(c - tokenBase); n >= 0 && n < len(tokens) {
			b.WriteString(tokens[n])
			continue
		}
		b.WriteString(html.EscapeString(string(c)))
	}
	return b.String()
}

// literal renders preformatted text: tokens still show as what they stand for, nothing else is
// formatted.
func (r *renderer) literal(text string) string {
	text, tokens := r.tokenize(text)
	return r.plainRunes([]rune(decodeEntities(text)), tokens)
}

// decodeEntities reads back the three entities Slack escapes. &amp; goes last, so "&amp;lt;"
// stays the text "&lt;".
func decodeEntities(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

// tokenize replaces each <…> of text by a placeholder and returns the tokens rendered.
func (r *renderer) tokenize(text string) (string, []string) {
	text = strings.Map(func(c rune) rune {
		if c >= tokenBase && c <= '\uF8FF' {
			return '\uFFFD'
		}
		return c
	}, text)
	var b strings.Builder
	var tokens []string
	for {
		i := strings.IndexByte(text, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(text[i:], '>')
		if j < 0 || len(tokens) >= maxTokens {
			break
		}
		b.WriteString(text[:i])
		b.WriteRune(tokenBase + rune(len(tokens)))
		tokens = append(tokens, r.token(text[i+1:i+j]))
		text = text[i+j+1:]
	}
	b.WriteString(text)
	return b.String(), tokens
}

// token renders the inside of one <…>.
func (r *renderer) token(t string) string {
	body, label, hasLabel := strings.Cut(t, "|")
	switch {
	case strings.HasPrefix(body, "@"):
		id := body[1:]
		name := label
		if p, ok := r.ws.Person(id); ok {
			name = p.Name
		} else if name == "" {
			name = id
		}
		class := "mention"
		if id == r.me {
			class += " me"
		}
		return `<span class="` + class + `" data-user="` + attr(id) + `">@` + html.EscapeString(decodeEntities(name)) + `</span>`
	case strings.HasPrefix(body, "!subteam^"):
		id := strings.TrimPrefix(body, "!subteam^")
		name := strings.TrimPrefix(label, "@")
		class := "mention group"
		if g, ok := r.ws.Group(id); ok {
			name = g.Handle
			for _, m := range g.Members {
				if m == r.me {
					class += " me"
				}
			}
		} else if name == "" {
			name = id
		}
		return `<span class="` + class + `" data-group="` + attr(id) + `">@` + html.EscapeString(decodeEntities(name)) + `</span>`
	case strings.HasPrefix(body, "!date^"):
		return r.date(strings.TrimPrefix(body, "!date^"), label)
	case body == "!here" || body == "!channel" || body == "!everyone":
		return `<span class="mention broadcast">@` + body[1:] + `</span>`
	case strings.HasPrefix(body, "#"):
		id := body[1:]
		name := label
		if c, ok := r.ws.Channel(id); ok {
			name = c.Name
		} else if name == "" {
			name = id
		}
		return `<a class="channel-link" href="` + attr(pageURL(id, r.me, "")) + `">#` + html.EscapeString(decodeEntities(name)) + `</a>`
	case strings.HasPrefix(body, "!"):
		if hasLabel {
			return html.EscapeString(decodeEntities(label))
		}
		return html.EscapeString("<" + decodeEntities(t) + ">")
	}
	return r.link(decodeEntities(body), label, hasLabel, t)
}

// link renders <url|label> and <url>. Only http, https and mailto links are links; a link to a
// message of the fake Slack opens that message in the page.
func (r *renderer) link(target, label string, hasLabel bool, raw string) string {
	text := target
	if hasLabel && label != "" {
		text = decodeEntities(label)
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "mailto") {
		return html.EscapeString("<" + decodeEntities(raw) + ">")
	}
	if channel, ts, ok := r.messageLink(target); ok {
		return `<a class="msg-link" href="` + attr(pageURL(channel, r.me, ts)) + `">` + html.EscapeString(text) + `</a>`
	}
	return `<a href="` + attr(target) + `" target="_blank" rel="noopener noreferrer">` + html.EscapeString(text) + `</a>`
}

// messageLink reads a permalink of the fake Slack: <workspace URL>archives/<channel>/p<ts
// without its dot>.
func (r *renderer) messageLink(target string) (channel, ts string, ok bool) {
	if r.slackURL == "" {
		return "", "", false
	}
	rest, ok := strings.CutPrefix(target, r.slackURL+"archives/")
	if !ok {
		return "", "", false
	}
	rest, _, _ = strings.Cut(rest, "?")
	channel, p, ok := strings.Cut(rest, "/p")
	if !ok || len(p) < 7 || !channelID.MatchString(channel) {
		return "", "", false
	}
	if _, err := strconv.ParseUint(p, 10, 64); err != nil {
		return "", "", false
	}
	return channel, p[:len(p)-6] + "." + p[len(p)-6:], true
}

// date renders <!date^unix^format(^link)|fallback>: the fallback, which the page's script
// replaces with the date in the viewer's time zone and locale, in the token's format.
func (r *renderer) date(spec, fallback string) string {
	parts := strings.SplitN(spec, "^", 3)
	secs, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || len(parts) < 2 {
		return html.EscapeString(decodeEntities(fallback))
	}
	format := parts[1]
	t := time.Unix(secs, 0).UTC()
	return fmt.Sprintf(`<time class="sdate" datetime="%s" data-unix="%d" data-format="%s" title="%s">%s</time>`,
		t.Format(time.RFC3339), secs, attr(format), attr(t.Format("Mon 2 Jan 2006 15:04 MST")), html.EscapeString(decodeEntities(fallback)))
}

// plainText renders a plain_text object: escaped, line breaks kept.
func plainText(text string) string {
	return strings.ReplaceAll(html.EscapeString(text), "\n", "<br>")
}

func attr(s string) string { return html.EscapeString(s) }

// pageURL is the page's address for a channel seen as a person, scrolled to a message when ts is
// not empty.
func pageURL(channel, as, ts string) string {
	q := url.Values{}
	q.Set("c", channel)
	if as != "" {
		q.Set("as", as)
	}
	u := "/?" + q.Encode()
	if ts != "" {
		u += "#" + messageID(ts)
	}
	return u
}

// messageID is the element ID of a message: "m-" and its ts with the dot replaced.
func messageID(ts string) string { return "m-" + strings.ReplaceAll(ts, ".", "-") }
