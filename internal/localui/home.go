package localui

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"strings"
)

// homeView is a Home tab as the app published it with views.publish.
type homeView struct {
	Type   string  `json:"type"`
	Blocks []block `json:"blocks"`
}

// homeFragment is the Home tab the app published for the person, as Slack shows it: its blocks,
// with buttons that click from the Home.
func (h *Handler) homeFragment(v viewer) fragment {
	view, ok := h.slack.Home(v.as.ID)
	if !ok {
		return newFragment(fmt.Sprintf(`<p class="empty" id="home-empty">%s has not published a Home tab for you yet. Opening this tab tells it (<code>app_home_opened</code>); it shows here as soon as the app publishes it.</p>`,
			html.EscapeString(h.opts.AppName)))
	}
	var hv homeView
	if err := json.Unmarshal(view.View, &hv); err != nil {
		return newFragment(`<div class="modal-error">The app's Home cannot be read: ` + html.EscapeString(err.Error()) + `</div>`)
	}
	r := h.renderer(v)
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="home-view" id="home-view" data-view-id="%s" data-hash="%s">`, attr(view.ID), attr(view.Hash))
	for i, bl := range hv.Blocks {
		b.WriteString(r.block(bl, i))
	}
	b.WriteString(`</div>`)
	return newFragment(b.String())
}

// openHome plays the person opening one of the app's tabs: "home" (the Home tab) or "messages"
// (the direct message). The app gets app_home_opened, as Slack sends it each time; the answer
// comes once it acked. What it publishes arrives over the event stream.
func (h *Handler) openHome(w http.ResponseWriter, r *http.Request) {
	p, err := h.form(w, r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	tab := r.PostForm.Get("tab")
	if tab != "home" && tab != "messages" {
		writeError(w, http.StatusBadRequest, badRequest("tab must be home or messages, not %q", tab))
		return
	}
	id, err := h.slack.OpenHome(p.ID, tab)
	if _, err := h.handled(r.Context(), id, err); err != nil {
		writeError(w, http.StatusBadGateway, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

// clickHome sends a click on a button of the person's Home tab: its container is the Home view,
// as Slack sends it.
func (h *Handler) clickHome(w http.ResponseWriter, r *http.Request, p Person) {
	actionID, value, menu := r.PostForm.Get("action_id"), r.PostForm.Get("value"), r.PostForm.Get("menu")
	if actionID == "" && menu == "" {
		writeError(w, http.StatusBadRequest, badRequest("action_id (or menu and option) is required"))
		return
	}
	if _, ok := h.slack.Home(p.ID); !ok {
		writeError(w, http.StatusConflict, errors.New("the app has not published a Home tab for you"))
		return
	}
	var id string
	var err error
	if menu != "" {
		id, err = h.slack.ChooseHome(p.ID, menu, r.PostForm.Get("option"), r.PostForm.Get("block_id"))
	} else {
		id, err = h.slack.ClickHome(p.ID, actionID, value)
	}
	if _, err := h.handled(r.Context(), id, err); err != nil {
		writeError(w, http.StatusBadGateway, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}
