package localui

import (
	"bytes"
	"context"
	"encoding/json"
	"html/template"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"
)

// maxListed is how many executions the panel lists.
const maxListed = 50

var templateFuncs = template.FuncMap{
	"rfc3339": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"clock":   func(t time.Time) string { return t.UTC().Format("15:04:05") },
	"zero":    func(t time.Time) bool { return t.IsZero() },
	"domid":   func(arn string) string { return "x-" + newFragment(arn).Key },
	"samples": func(s []Sample) (string, error) {
		b, err := json.Marshal(s)
		return string(b), err
	},
}

// panelCache shares the panel's parts between the open pages for half a RefreshInterval, so each
// refresh costs one round of Step Functions calls however many pages are open.
type panelCache struct {
	mu                   sync.Mutex
	at                   time.Time
	machines, executions fragment
}

// panel returns the start form's state machines and the list of executions; fresh ones when
// fresh is set.
func (h *Handler) panel(ctx context.Context, fresh bool) (machines, executions fragment) {
	c := &h.panelCache
	c.mu.Lock()
	defer c.mu.Unlock()
	if fresh || time.Since(c.at) >= h.opts.RefreshInterval/2 {
		c.machines, c.executions = h.machinesFragment(ctx), h.executionsFragment(ctx)
		c.at = time.Now()
	}
	return c.machines, c.executions
}

// machinesFragment is the start form's choice of state machines, each option carrying its
// samples (data-samples, JSON).
func (h *Handler) machinesFragment(ctx context.Context) fragment {
	machines, err := h.opts.Executions.StateMachines(ctx)
	return h.renderFragment("machines", struct {
		Machines []StateMachine
		Err      error
	}{machines, err})
}

// executionsFragment is the list of executions.
func (h *Handler) executionsFragment(ctx context.Context) fragment {
	list, err := h.opts.Executions.List(ctx, maxListed)
	return h.renderFragment("executions", struct {
		Executions []Execution
		Err        error
	}{list, err})
}

func (h *Handler) renderFragment(name string, data any) fragment {
	var b bytes.Buffer
	if err := h.pages.ExecuteTemplate(&b, name, data); err != nil {
		h.log.Warn("render a part of the page", zap.String("part", name), zap.Error(err))
		return newFragment(`<p class="error">The page could not render this part.</p>`)
	}
	return newFragment(b.String())
}

// execution serves an execution's detail and history.
func (h *Handler) execution(w http.ResponseWriter, r *http.Request) {
	if h.opts.Executions == nil {
		http.Error(w, "no executions panel", http.StatusNotFound)
		return
	}
	arn := r.FormValue("arn")
	if arn == "" {
		http.Error(w, "arn is required", http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.opts.ActionTimeout)
	defer cancel()
	d, err := h.opts.Executions.Describe(ctx, arn)
	f := h.renderFragment("execution", struct {
		D   ExecutionDetail
		Err error
	}{d, err})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(f.HTML))
}
