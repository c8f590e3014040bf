package localui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// events streams the parts of the page that changed, as server-sent events named after the
// part, each {"key", "html"}. Slack's parts are sent at every change of the fake Slack, the
// executions panel every RefreshInterval; a part is sent only when it differs from the last
// one sent on this stream (all of them once at the start).
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	select {
	case <-h.done:
		http.Error(w, "the page is shutting down", http.StatusServiceUnavailable)
		return
	default:
	}
	v, err := h.viewerOf(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.streams.Add(1)
	defer h.streams.Done()

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	sent := map[string]string{}
	send := func(name string, f fragment) error {
		if sent[name] == f.Key {
			return nil
		}
		data, err := json.Marshal(f)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data); err != nil {
			return err
		}
		sent[name] = f.Key
		return rc.Flush()
	}
	tick := time.NewTicker(h.opts.RefreshInterval)
	defer tick.Stop()
	panelDue := true
	for {
		changed := h.slack.Changed()
		parts := []part{{"channels", h.channelsFragment(v)}}
		if v.home() {
			parts = append(parts, part{"home", h.homeFragment(v)})
		} else {
			parts = append(parts, part{"messages", h.messagesFragment(v)})
		}
		parts = append(parts, part{"modal", h.modalFragment(v)})
		if panelDue && h.opts.Executions != nil {
			ctx, cancel := context.WithTimeout(r.Context(), h.opts.ActionTimeout)
			machines, executions := h.panel(ctx, false)
			cancel()
			parts = append(parts, part{"machines", machines}, part{"executions", executions})
			panelDue = false
		}
		for _, p := range parts {
			if err := send(p.name, p.f); err != nil {
				h.log.Debug("event stream ended", zap.Error(err))
				return
			}
		}
		select {
		case <-changed:
		case <-tick.C:
			panelDue = true
		case <-r.Context().Done():
			return
		case <-h.done:
			return
		}
	}
}

// part is a named part of the page.
type part struct {
	name string
	f    fragment
}
