package localui

import (
	"context"
	"fmt"
	"hash/fnv"
	"html"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// viewer is who looks at which channel.
type viewer struct {
	as      Person
	channel string
}

// fragment is one part of the page: its HTML and a key that changes when the HTML does.
type fragment struct {
	Key  string        `json:"key"`
	HTML template.HTML `json:"html"`
}

func newFragment(s string) fragment {
	f := fnv.New64a()
	f.Write([]byte(s))
	return fragment{Key: strconv.FormatUint(f.Sum64(), 36), HTML: template.HTML(s)}
}

// viewerOf reads who acts (as) and where (c) from the query; an unknown person is an error.
func (h *Handler) viewerOf(r *http.Request) (viewer, error) {
	v := viewer{as: h.ws.People[0], channel: r.FormValue("c")}
	if id := r.FormValue("as"); id != "" {
		p, ok := h.ws.Person(id)
		if !ok {
			return v, fmt.Errorf("%q is not one of the workspace's people", id)
		}
		v.as = p
	}
	if v.channel == "" {
		if chans := h.channels(v.as.ID); len(chans) > 0 {
			v.channel = chans[0]
		}
	}
	return v, nil
}

// channels are the workspace's channels, then any other channel that holds messages or the
// person's ephemeral messages.
func (h *Handler) channels(as string) []string {
	var out []string
	for _, c := range h.ws.Channels {
		out = append(out, c.ID)
	}
	extra := h.slack.Channels()
	for _, m := range h.slack.Ephemerals(as) {
		extra = append(extra, m.Channel)
	}
	slices.Sort(extra)
	for _, c := range slices.Compact(extra) {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

func (h *Handler) channelName(id string) string {
	if c, ok := h.ws.Channel(id); ok {
		return c.Name
	}
	return id
}

func (h *Handler) renderer(v viewer) *renderer {
	return &renderer{ws: h.ws, me: v.as.ID, slackURL: h.slack.URL()}
}

// channelsFragment is the sidebar's channel list.
func (h *Handler) channelsFragment(v viewer) fragment {
	var b strings.Builder
	for _, c := range h.channels(v.as.ID) {
		class := "chan"
		if c == v.channel {
			class += " active"
		}
		fmt.Fprintf(&b, `<a class="%s" href="%s" data-channel="%s"># %s</a>`,
			class, attr(pageURL(c, v.as.ID, "")), attr(c), html.EscapeString(h.channelName(c)))
	}
	return newFragment(b.String())
}

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
	if len(top) == 0 {
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
	return unixUTC(secs).Format("15:04")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// modalFragment is the modal the person has open, or nothing.
func (h *Handler) modalFragment(v viewer) fragment {
	view, ok := h.slack.OpenView(v.as.ID)
	if !ok {
		return newFragment("")
	}
	return newFragment(`<div class="backdrop">` + h.renderer(v).modal(view) + `</div>`)
}

// page serves the whole page.
func (h *Handler) page(w http.ResponseWriter, r *http.Request) {
	v, err := h.viewerOf(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	data := pageData{
		As: v.as, People: h.ws.People, Channel: v.channel, ChannelName: h.channelName(v.channel),
		Channels: h.channelsFragment(v), Messages: h.messagesFragment(v), Modal: h.modalFragment(v),
		HasExecutions: h.opts.Executions != nil,
	}
	if data.HasExecutions {
		ctx, cancel := context.WithTimeout(r.Context(), h.opts.ActionTimeout)
		defer cancel()
		data.Machines, data.Executions = h.panel(ctx, true)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := h.pages.ExecuteTemplate(w, "page.html", data); err != nil {
		h.log.Warn("render the page", zapError(err))
	}
}

type pageData struct {
	As                        Person
	People                    []Person
	Channel, ChannelName      string
	Channels, Messages, Modal fragment
	HasExecutions             bool
	Machines, Executions      fragment
}
