package localui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// maxForm bounds a POST body: an execution input may be 256 KiB in Step Functions.
const maxForm = 1 << 20

// What Slack tells a person when the app did not answer in time.
const (
	msgNotConnected = "The app is not connected to Slack (no Socket Mode connection): is the bot running?"
	msgNoAnswer     = "The app did not respond in time: nothing happened (Slack shows a warning)."
	msgStillWaiting = "The app has not answered yet."
)

// refusal is what the page tells the person, as it is, with the HTTP status of the answer.
type refusal struct {
	status int
	text   string
}

func (e *refusal) Error() string { return e.text }

func badRequest(format string, args ...any) error {
	return &refusal{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, err error) {
	var r *refusal
	if errors.As(err, &r) {
		status = r.status
	}
	writeJSON(w, status, map[string]any{"error": err.Error()})
}

// form parses a POST form and the acting person.
func (h *Handler) form(w http.ResponseWriter, r *http.Request) (Person, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return Person{}, badRequest("read the form: %v", err)
	}
	id := r.PostForm.Get("as")
	p, ok := h.ws.Person(id)
	if !ok {
		return Person{}, badRequest("%q is not one of the workspace's people", id)
	}
	return p, nil
}

// handled waits for the app to ack an envelope the fake sent, and words its failure as Slack
// shows it.
func (h *Handler) handled(ctx context.Context, envelopeID string, sendErr error) (fakeslack.Ack, error) {
	switch {
	case errors.Is(sendErr, fakeslack.ErrNoConnection):
		return fakeslack.Ack{}, &refusal{http.StatusBadGateway, msgNotConnected}
	case sendErr != nil:
		return fakeslack.Ack{}, badRequest("%v", strings.TrimPrefix(sendErr.Error(), "fakeslack: "))
	}
	ctx, cancel := context.WithTimeout(ctx, h.opts.ActionTimeout)
	defer cancel()
	ack, err := h.slack.WaitHandled(ctx, envelopeID)
	switch {
	case errors.Is(err, fakeslack.ErrNotAcked):
		return ack, &refusal{http.StatusBadGateway, msgNoAnswer}
	case err != nil:
		return ack, &refusal{http.StatusGatewayTimeout, msgStillWaiting}
	}
	return ack, nil
}

// click sends a button click as the person: on a message, or with container "home" on their
// Home tab.
func (h *Handler) click(w http.ResponseWriter, r *http.Request) {
	p, err := h.form(w, r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	f := r.PostForm
	if f.Get("container") == homeTab {
		h.clickHome(w, r, p)
		return
	}
	channel, ts, actionID, value := f.Get("channel"), f.Get("ts"), f.Get("action_id"), f.Get("value")
	menu := f.Get("menu")
	if channel == "" || ts == "" || actionID == "" && menu == "" {
		writeError(w, http.StatusBadRequest, badRequest("channel, ts and action_id (or menu and option) are required"))
		return
	}
	if err := canSee(p, channel); err != nil {
		writeError(w, http.StatusForbidden, err)
		return
	}
	var id string
	switch {
	case menu != "":
		id, err = h.slack.Choose(p.ID, channel, ts, menu, f.Get("option"))
	case f.Get("ephemeral") == "true":
		id, err = h.slack.ClickEphemeral(p.ID, channel, ts, actionID, value)
	default:
		id, err = h.slack.Click(p.ID, channel, ts, actionID, value)
	}
	if _, err := h.handled(r.Context(), id, err); err != nil {
		writeError(w, http.StatusBadGateway, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

// submit sends the open modal's submission as the person. Inputs Slack would refuse itself (a
// required one left empty) are answered without sending anything; the app's own errors come
// back the same way: {"errors": {block_id: message}} with status 422.
func (h *Handler) submit(w http.ResponseWriter, r *http.Request) {
	p, err := h.form(w, r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	view, ok := h.slack.OpenView(p.ID)
	if !ok || view.ID != r.PostForm.Get("view_id") {
		writeError(w, http.StatusConflict, errors.New("this modal is no longer open"))
		return
	}
	if view.Hash != r.PostForm.Get("hash") {
		writeError(w, http.StatusConflict, errors.New("the app changed this modal meanwhile; check it and submit again"))
		return
	}
	values, errs, err := submission(view.View, r.PostForm, h.ws)
	if err != nil {
		writeError(w, http.StatusBadRequest, badRequest("%v", err))
		return
	}
	if errs != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"errors": errs})
		return
	}
	id, err := h.slack.Submit(p.ID, view.ID, values)
	ack, err := h.handled(r.Context(), id, err)
	if err != nil {
		writeError(w, http.StatusBadGateway, err)
		return
	}
	var resp struct {
		ResponseAction string            `json:"response_action"`
		Errors         map[string]string `json:"errors"`
	}
	_ = json.Unmarshal(ack.Payload, &resp)
	if resp.ResponseAction == "errors" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"errors": resp.Errors})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

// closeView closes the person's open modal.
func (h *Handler) closeView(w http.ResponseWriter, r *http.Request) {
	p, err := h.form(w, r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	id, err := h.slack.CloseView(p.ID, r.PostForm.Get("view_id"))
	if err != nil {
		writeError(w, http.StatusConflict, errors.New("this modal is no longer open"))
		return
	}
	if id != "" {
		if _, err := h.handled(r.Context(), id, nil); err != nil {
			h.log.Info("the app did not ack a view_closed envelope", zap.String("envelope_id", id), zap.String("slack_user", p.ID))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

// message runs a slash command, or posts a message, as the person in a channel.
func (h *Handler) message(w http.ResponseWriter, r *http.Request) {
	p, err := h.form(w, r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	channel, text := r.PostForm.Get("channel"), strings.TrimSpace(r.PostForm.Get("text"))
	if channel == "" || text == "" {
		writeError(w, http.StatusBadRequest, badRequest("channel and text are required"))
		return
	}
	if err := canSee(p, channel); err != nil {
		writeError(w, http.StatusForbidden, err)
		return
	}
	if !strings.HasPrefix(text, "/") {
		if _, err := h.slack.PostMessageAs(p.ID, channel, "", slackEscape(text)); err != nil {
			writeError(w, http.StatusBadRequest, badRequest("%v", err))
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
		return
	}
	command, args, _ := strings.Cut(text, " ")
	known := false
	for _, c := range h.opts.Commands {
		known = known || c == command
	}
	if !known {
		writeError(w, http.StatusBadRequest, badRequest("%s is not a valid command. In Slack, all messages that start with the \"/\" character are interpreted as commands.", command))
		return
	}
	id, err := h.slack.Slash(p.ID, channel, command, strings.TrimSpace(args))
	if _, err := h.handled(r.Context(), id, err); err != nil {
		writeError(w, http.StatusBadGateway, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

// canSee refuses a channel the person cannot see: another person's direct message with the app.
func canSee(p Person, channel string) error {
	if owner := fakeslack.DMUser(channel); owner != "" && owner != p.ID {
		return &refusal{http.StatusForbidden, "only the person of a direct message sees it"}
	}
	return nil
}

// slackEscape escapes what a person types as Slack stores it.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// start starts an execution.
func (h *Handler) start(w http.ResponseWriter, r *http.Request) {
	if h.opts.Executions == nil {
		writeError(w, http.StatusNotFound, errors.New("no executions panel"))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("read the form: %w", err))
		return
	}
	machine, name, input := r.PostForm.Get("state_machine"), strings.TrimSpace(r.PostForm.Get("name")), strings.TrimSpace(r.PostForm.Get("input"))
	if machine == "" {
		writeError(w, http.StatusBadRequest, errors.New("choose a state machine"))
		return
	}
	if input == "" {
		input = "{}"
	}
	if err := checkJSON(input); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.opts.ActionTimeout)
	defer cancel()
	arn, err := h.opts.Executions.Start(ctx, machine, name, input)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "arn": arn})
}

// checkJSON explains where input stops being JSON.
func checkJSON(input string) error {
	var v any
	err := json.Unmarshal([]byte(input), &v)
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		line := 1 + strings.Count(input[:min(int(syntax.Offset), len(input))], "\n")
		return fmt.Errorf("the input is not JSON: %v (line %d)", syntax, line)
	case err != nil:
		return fmt.Errorf("the input is not JSON: %w", err)
	}
	return nil
}

// stop stops an execution.
func (h *Handler) stop(w http.ResponseWriter, r *http.Request) {
	if h.opts.Executions == nil {
		writeError(w, http.StatusNotFound, errors.New("no executions panel"))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil || r.PostForm.Get("arn") == "" {
		writeError(w, http.StatusBadRequest, errors.New("arn is required"))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.opts.ActionTimeout)
	defer cancel()
	if err := h.opts.Executions.Stop(ctx, r.PostForm.Get("arn")); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}
