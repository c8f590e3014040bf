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
		h.log.Warn("render the page", zap.Error(err))
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
