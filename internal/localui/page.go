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

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// viewer is who looks at which channel, or at the app's Home tab (channel homeTab).
type viewer struct {
	as      Person
	channel string
}

// homeTab is the c of the page showing the app's Home tab rather than a channel.
const homeTab = "home"

func (v viewer) home() bool { return v.channel == homeTab }

// dm is the viewer's direct message with the app.
func (v viewer) dm() string { return fakeslack.DMChannel(v.as.ID) }

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
	if fakeslack.DMUser(v.channel) != "" {
		// Only its person sees a direct message: anyone else who follows a link to one (the
		// People list keeps the conversation open) is shown their own.
		v.channel = v.dm()
	}
	if v.channel == "" {
		if chans := h.channels(v.as.ID); len(chans) > 0 {
			v.channel = chans[0]
		}
	}
	return v, nil
}

// channels are the workspace's channels, then any other channel that holds messages or the
// person's ephemeral messages. Direct messages are not channels: the sidebar shows the person's
// own under Apps.
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
		if fakeslack.DMUser(c) == "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// channelName is what the page calls a channel: its name, the app's name for a direct message
// with it and for the Home tab, or its ID.
func (h *Handler) channelName(id string) string {
	if c, ok := h.ws.Channel(id); ok {
		return c.Name
	}
	if id == homeTab || fakeslack.DMUser(id) != "" {
		return h.opts.AppName
	}
	return id
}

func (h *Handler) renderer(v viewer) *renderer {
	return &renderer{ws: h.ws, me: v.as.ID, slackURL: h.slack.URL()}
}

// channelsFragment is the sidebar's channel list, then the app: its Home tab and its Messages
// tab (the person's direct message with it, with the number of messages there).
func (h *Handler) channelsFragment(v viewer) fragment {
	var b strings.Builder
	link := func(c, label string) {
		class := "chan"
		if c == v.channel {
			class += " active"
		}
		fmt.Fprintf(&b, `<a class="%s" href="%s" data-channel="%s">%s</a>`, class, attr(pageURL(c, v.as.ID, "")), attr(c), label)
	}
	for _, c := range h.channels(v.as.ID) {
		link(c, "# "+html.EscapeString(h.channelName(c)))
	}
	app := html.EscapeString(h.opts.AppName)
	b.WriteString(`<h2>Apps</h2>`)
	link(homeTab, `<span class="app-icon" aria-hidden="true">🏠</span>`+app+` <small>Home</small>`)
	count := ""
	if n := h.dmCount(v); n > 0 {
		count = fmt.Sprintf(` <span class="count" title="messages">%d</span>`, n)
	}
	link(v.dm(), `<span class="app-icon" aria-hidden="true">💬</span>`+app+` <small>Messages</small>`+count)
	return newFragment(b.String())
}

// dmCount is the number of messages (threads counted once) in the person's direct message with
// the app.
func (h *Handler) dmCount(v viewer) int {
	n := 0
	for _, m := range h.slack.Messages(v.dm()) {
		if !m.Deleted && (m.ThreadTS == "" || m.ThreadTS == m.TS) {
			n++
		}
	}
	return n
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
		Channels: h.channelsFragment(v), Modal: h.modalFragment(v),
		HasExecutions: h.opts.Executions != nil,
		Home:          v.home(), DM: fakeslack.DMUser(v.channel) != "", DMChannel: v.dm(),
	}
	if data.Home {
		data.Main = h.homeFragment(v)
	} else {
		data.Main = h.messagesFragment(v)
	}
	if data.HasExecutions {
		ctx, cancel := context.WithTimeout(r.Context(), h.opts.ActionTimeout)
		defer cancel()
		data.Machines, data.Executions = h.panel(ctx, true)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := h.pages.ExecuteTemplate(w, "page.html", data); err != nil {
		h.log.Warn("render the page", zap.Error(err))
	}
}

type pageData struct {
	As                   Person
	People               []Person
	Channel, ChannelName string
	// Home is set on the app's Home tab, DM in the person's direct message with the app
	// (DMChannel): the page then shows the app's tabs.
	Home, DM  bool
	DMChannel string
	// Main is the channel's messages, or the Home tab.
	Main, Channels, Modal fragment
	HasExecutions         bool
	Machines, Executions  fragment
}
