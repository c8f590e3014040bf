package localui

import (
	"fmt"
	"hash/fnv"
	"html"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// item is a message as the channel shows it, with its thread.
type item struct {
	fakeslack.Message
	replies []item
}

// messagesFragment is the channel's messages in order, each with its thread, and the person's
// ephemeral messages among them.
func (h *Handler) messagesFragment(v viewer) fragment {
	if v.channel == "" {
		return newFragment(`<p class="empty">No channel yet.</p>`)
	}
	var top []item
	replies := map[string][]item{}
	all := h.slack.Messages(v.channel)
	for _, m := range h.slack.Ephemerals(v.as.ID) {
		if m.Channel == v.channel {
			all = append(all, m)
		}
	}
	parents := map[string]bool{}
	for _, m := range all {
		if !m.Ephemeral && (m.ThreadTS == "" || m.ThreadTS == m.TS) {
			parents[m.TS] = true
		}
	}
	for _, m := range all {
		if m.Deleted {
			continue
		}
		if m.ThreadTS != "" && m.ThreadTS != m.TS && parents[m.ThreadTS] {
			replies[m.ThreadTS] = append(replies[m.ThreadTS], item{Message: m})
			continue
		}
		top = append(top, item{Message: m})
	}
	for i := range top {
		top[i].replies = replies[top[i].TS]
		slices.SortStableFunc(top[i].replies, byTS)
	}
	slices.SortStableFunc(top, byTS)
	switch {
	case len(top) == 0 && fakeslack.DMUser(v.channel) != "":
		return newFragment(fmt.Sprintf(`<p class="empty" id="empty">No messages from %s yet. A request whose channel is your user ID (<code>%s</code>) arrives here, where only you see it.</p>`,
			html.EscapeString(h.opts.AppName), html.EscapeString(v.as.ID)))
	case len(top) == 0:
		return newFragment(fmt.Sprintf(`<p class="empty" id="empty">Nothing in #%s yet. Start an execution in the panel on the right, or type <code>/approvals pending</code>.</p>`,
			html.EscapeString(h.channelName(v.channel))))
	}
	r := h.renderer(v)
	var b strings.Builder
	for _, it := range top {
		b.WriteString(h.messageHTML(r, it))
	}
	return newFragment(b.String())
}

func byTS(a, b item) int { return compareTS(a.TS, b.TS) }

// compareTS orders Slack timestamps ("1700000000.000100") by time.
func compareTS(a, b string) int {
	as, af, _ := strings.Cut(a, ".")
	bs, bf, _ := strings.Cut(b, ".")
	if len(as) != len(bs) {
		return len(as) - len(bs)
	}
	return strings.Compare(as+"."+af, bs+"."+bf)
}

// messageHTML renders one message with its thread. Its data-key changes whenever what it shows
// does, so the page replaces only messages that changed.
func (h *Handler) messageHTML(r *renderer, it item) string {
	var thread strings.Builder
	if len(it.replies) > 0 {
		fmt.Fprintf(&thread, `<div class="thread"><div class="thread-head">%d %s</div>`, len(it.replies), plural(len(it.replies), "reply", "replies"))
		for _, reply := range it.replies {
			thread.WriteString(`<div class="reply" id="` + messageID(reply.TS) + `"` + messageAttrs(reply.Message) + `>`)
			h.messageBody(&thread, r, reply.Message, "")
			thread.WriteString(`</div>`)
		}
		thread.WriteString(`</div>`)
	}
	var inner strings.Builder
	h.messageBody(&inner, r, it.Message, thread.String())
	key := newFragment(inner.String()).Key
	class := "msg"
	if it.Ephemeral {
		class += " eph"
	}
	return fmt.Sprintf(`<article class="%s" id="%s" data-key="%s"%s>%s</article>`, class, messageID(it.TS), key, messageAttrs(it.Message), inner.String())
}

func messageAttrs(m fakeslack.Message) string {
	s := ` data-channel="` + attr(m.Channel) + `" data-ts="` + attr(m.TS) + `"`
	if m.Ephemeral {
		s += ` data-ephemeral="true"`
	}
	return s
}

// messageBody renders a message's avatar, author line and content, then after (its thread).
func (h *Handler) messageBody(b *strings.Builder, r *renderer, m fakeslack.Message, after string) {
	name, initial, color, isApp := h.author(m.User)
	fmt.Fprintf(b, `<div class="avatar c%d" aria-hidden="true">%s</div><div class="msg-main"><div class="msg-head"><span class="author">%s</span>`,
		color, html.EscapeString(initial), html.EscapeString(name))
	if isApp {
		b.WriteString(`<span class="app-badge">APP</span>`)
	}
	updated := ""
	if m.Updates > 0 {
		updated = fmt.Sprintf(` data-updates="%d"`, m.Updates)
	}
	fmt.Fprintf(b, `<time class="msgtime" data-ts="%s"%s>%s</time>`, attr(m.TS), updated, html.EscapeString(tsClock(m.TS)))
	b.WriteString(`</div>`)
	if m.Ephemeral {
		b.WriteString(`<div class="eph-note">👁 Only visible to you</div>`)
	}
	b.WriteString(`<div class="msg-body">` + r.message(m.Blocks, m.Text) + `</div>` + after + `</div>`)
}

// author names a message's author: the app, a person of the workspace, or a user ID.
func (h *Handler) author(user string) (name, initial string, color int, isApp bool) {
	f := fnv.New32a()
	f.Write([]byte(user))
	color = int(f.Sum32() % 8)
	switch p, ok := h.ws.Person(user); {
	case user == h.slack.BotUserID():
		name, isApp, color = h.opts.AppName, true, 8
	case ok:
		name = p.RealName
	default:
		name = user
	}
	initial = strings.ToUpper(string([]rune(name)[:1]))
	return name, initial, color, isApp
}

// tsClock is a message time as UTC hours and minutes, until the page's script shows it in the
// viewer's zone.
func tsClock(ts string) string {
	secs, err := strconv.ParseInt(strings.Split(ts, ".")[0], 10, 64)
	if err != nil {
		return ts
	}
	return time.Unix(secs, 0).UTC().Format("15:04")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
