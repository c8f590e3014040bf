package localui_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/sfnapprovals/approvals/internal/localui"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// post sends a form as the page's script does and decodes the JSON answer.
func (u *ui) post(t *testing.T, path string, form url.Values) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodPost, u.url+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", u.url)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatalf("POST %s answered %d without JSON: %v", path, res.StatusCode, err)
	}
	return res.StatusCode, body
}

// page fetches the page as a person.
func (u *ui) page(t *testing.T, as, channel string) string {
	t.Helper()
	res, err := http.Get(u.url + "/?" + url.Values{"as": {as}, "c": {channel}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET / as %s: %d %s", as, res.StatusCode, b)
	}
	return string(b)
}

func TestGuard(t *testing.T) {
	t.Parallel()
	u := newUI(t, fakeslack.Options{}, localui.Options{})
	tests := []struct {
		name, method, path, host string
		header                   map[string]string
		want                     int
	}{
		{"loopback address", "GET", "/", "127.0.0.1:8080", nil, 200},
		{"another loopback address", "GET", "/", "127.0.0.2", nil, 200},
		{"localhost", "GET", "/", "LOCALHOST:8080", nil, 200},
		{"IPv6 loopback", "GET", "/", "[::1]:8080", nil, 200},
		{"a rebound name", "GET", "/", "evil.example:8080", nil, 403},
		{"a name that starts like an address", "GET", "/", "127.0.0.1.evil.example", nil, 403},
		{"no host", "GET", "/", "", nil, 403},
		{"a rebound name posting", "POST", "/message", "evil.example", nil, 403},
		{"cross-origin post", "POST", "/message", "127.0.0.1:8080", map[string]string{"Origin": "http://evil.example"}, 403},
		{"cross-site fetch", "POST", "/message", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same-site, other port", "POST", "/message", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:9090"}, 403},
		{"same origin", "POST", "/message", "127.0.0.1:8080", map[string]string{"Origin": "http://127.0.0.1:8080", "Sec-Fetch-Site": "same-origin"}, 200},
		{"state changes only by POST", "GET", "/message", "127.0.0.1:8080", nil, 405},
		{"unknown person", "GET", "/?as=U0NOBODY", "127.0.0.1:8080", nil, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(u.slack.Messages("C0PUBLISH"))
			body := url.Values{"as": {"U0BOB"}, "channel": {"C0PUBLISH"}, "text": {"hello"}}.Encode()
			req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(body))
			req.Host = tt.host
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			u.h.ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Fatalf("%s %s for %q = %d %s, want %d", tt.method, tt.path, tt.host, rec.Code, rec.Body, tt.want)
			}
			after := len(u.slack.Messages("C0PUBLISH"))
			if changed := after != before; changed != (tt.want == 200 && tt.method == "POST") {
				t.Errorf("messages went from %d to %d", before, after)
			}
			if csp := rec.Header().Get("Content-Security-Policy"); tt.want == 200 && !strings.Contains(csp, "script-src 'self'") {
				t.Errorf("Content-Security-Policy = %q", csp)
			}
		})
	}
}

// A click reaches the app as a block_actions envelope from the person; Slack's answers when it
// does not.
func TestClick(t *testing.T) {
	t.Parallel()
	u := newUI(t, fakeslack.Options{AckTimeout: 500 * time.Millisecond}, localui.Options{})
	_, ts, err := u.api.PostMessage("C0PUBLISH", slack.MsgOptionText("request", false), slack.MsgOptionBlocks(
		slack.NewActionBlock("ap_1",
			slack.NewButtonBlockElement("approve", "ap_1", slack.NewTextBlockObject(slack.PlainTextType, "Approve", false, false)),
			slack.NewButtonBlockElement("ignored", "ap_1", slack.NewTextBlockObject(slack.PlainTextType, "Ignored", false, false)))))
	if err != nil {
		t.Fatal(err)
	}
	click := func(actionID string) (int, map[string]any) {
		return u.post(t, "/click", url.Values{"as": {"U0MALLORY"}, "channel": {"C0PUBLISH"}, "ts": {ts}, "action_id": {actionID}, "value": {"ap_1"}})
	}

	if code, body := click("approve"); code != http.StatusBadGateway || !strings.Contains(body["error"].(string), "not connected") {
		t.Errorf("without the app: %d %v", code, body)
	}
	a := startApp(t, u, func(e socketmode.Event) any {
		if cb, ok := e.Data.(slack.InteractionCallback); ok && cb.ActionCallback.BlockActions[0].ActionID == "ignored" {
			return noAck
		}
		return nil
	})
	if code, body := click("approve"); code != http.StatusOK {
		t.Fatalf("click: %d %v", code, body)
	}
	got := a.requests()[0].Data.(slack.InteractionCallback)
	if got.Type != slack.InteractionTypeBlockActions || got.User.ID != "U0MALLORY" || got.Container.MessageTs != ts || got.ActionCallback.BlockActions[0].ActionID != "approve" {
		t.Errorf("the app got %s from %s on %s: %+v", got.Type, got.User.ID, got.Container.MessageTs, got.ActionCallback.BlockActions)
	}
	if code, body := click("ignored"); code != http.StatusBadGateway || !strings.Contains(body["error"].(string), "did not respond") {
		t.Errorf("unacked: %d %v", code, body)
	}
	if code, body := click("nope"); code != http.StatusBadRequest || !strings.Contains(body["error"].(string), `no button "nope"`) {
		t.Errorf("unknown button: %d %v", code, body)
	}
	if code, _ := u.post(t, "/click", url.Values{"as": {"U0NOBODY"}, "channel": {"C0PUBLISH"}, "ts": {ts}, "action_id": {"approve"}}); code != http.StatusBadRequest {
		t.Errorf("a stranger to the workspace clicked: %d", code)
	}
}

// A modal is submitted as view_submission with the state Slack would send; Slack's own checks
// and the app's errors come back by block_id and show in the modal.
func TestSubmit(t *testing.T) {
	t.Parallel()
	u := newUI(t, fakeslack.Options{}, localui.Options{})
	var refuse atomic.Bool
	refuse.Store(true)
	a := startApp(t, u, func(e socketmode.Event) any {
		if refuse.Load() {
			return slack.NewErrorsViewSubmissionResponse(map[string]string{"reason": "Say <why>."})
		}
		return nil
	})
	view, err := u.api.OpenView(u.slack.NewTrigger("U0ALICE"), slack.ModalViewRequest{
		Type: slack.VTModal, Title: slack.NewTextBlockObject(slack.PlainTextType, "Reject", false, false),
		Submit: slack.NewTextBlockObject(slack.PlainTextType, "Reject", false, false), CallbackID: "reject", PrivateMetadata: "ap_1",
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewInputBlock("reason", slack.NewTextBlockObject(slack.PlainTextType, "Reason", false, false), nil,
				slack.NewPlainTextInputBlockElement(nil, "text")),
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	form := func(as, text, hash string) url.Values {
		return url.Values{"as": {as}, "view_id": {view.ID}, "hash": {hash}, "in-0": {text}}
	}
	if !strings.Contains(u.page(t, "U0ALICE", "C0PUBLISH"), `data-view-id="`+view.ID+`"`) {
		t.Error("alice does not see her modal")
	}
	if strings.Contains(u.page(t, "U0BOB", "C0PUBLISH"), `data-view-id=`) {
		t.Error("bob sees alice's modal")
	}

	code, body := u.post(t, "/submit", form("U0ALICE", "", view.Hash))
	if code != http.StatusUnprocessableEntity || body["errors"].(map[string]any)["reason"] != "Please complete this required field." {
		t.Errorf("an empty required input: %d %v", code, body)
	}
	if n := len(a.requests()); n != 0 {
		t.Fatalf("the app got %d envelopes for a submission Slack refuses itself", n)
	}
	if code, _ := u.post(t, "/submit", form("U0BOB", "x", view.Hash)); code != http.StatusConflict {
		t.Errorf("bob submitted alice's modal: %d", code)
	}
	if code, _ := u.post(t, "/submit", form("U0ALICE", "x", "stale")); code != http.StatusConflict {
		t.Errorf("a stale modal was submitted: %d", code)
	}

	code, body = u.post(t, "/submit", form("U0ALICE", "too risky", view.Hash))
	if code != http.StatusUnprocessableEntity || body["errors"].(map[string]any)["reason"] != "Say <why>." {
		t.Fatalf("the app's errors: %d %v", code, body)
	}
	got := a.requests()[0].Data.(slack.InteractionCallback)
	if got.Type != slack.InteractionTypeViewSubmission || got.User.ID != "U0ALICE" || got.View.CallbackID != "reject" ||
		got.View.PrivateMetadata != "ap_1" || got.View.State.Values["reason"]["text"].Value != "too risky" {
		t.Errorf("the app got %s from %s: %+v", got.Type, got.User.ID, got.View.State)
	}
	if page := u.page(t, "U0ALICE", "C0PUBLISH"); !strings.Contains(page, `<div class="b-error" role="alert">Say &lt;why&gt;.</div>`) {
		t.Error("the modal does not show the app's error")
	}

	refuse.Store(false)
	if code, body := u.post(t, "/submit", form("U0ALICE", "too risky", view.Hash)); code != http.StatusOK {
		t.Fatalf("submit: %d %v", code, body)
	}
	if _, open := u.slack.OpenView("U0ALICE"); open {
		t.Error("the modal is still open after a plain ack")
	}
}

func TestCloseModal(t *testing.T) {
	t.Parallel()
	u := newUI(t, fakeslack.Options{}, localui.Options{})
	view, err := u.api.OpenView(u.slack.NewTrigger("U0ALICE"), slack.ModalViewRequest{
		Type: slack.VTModal, Title: slack.NewTextBlockObject(slack.PlainTextType, "Hi", false, false)})
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := u.post(t, "/close", url.Values{"as": {"U0BOB"}, "view_id": {view.ID}}); code != http.StatusConflict {
		t.Errorf("bob closed alice's modal: %d", code)
	}
	if code, body := u.post(t, "/close", url.Values{"as": {"U0ALICE"}, "view_id": {view.ID}}); code != http.StatusOK {
		t.Fatalf("close: %d %v", code, body)
	}
	if _, open := u.slack.OpenView("U0ALICE"); open {
		t.Error("the modal is still open")
	}
}

// A slash command goes to the app; its answer is seen by the person who ran it, and nobody else.
func TestCommandsAndMessages(t *testing.T) {
	t.Parallel()
	u := newUI(t, fakeslack.Options{}, localui.Options{})
	a := startApp(t, u, func(socketmode.Event) any {
		return map[string]any{"response_type": "ephemeral", "text": "*Nothing* waits for you."}
	})
	send := func(as, text string) (int, map[string]any) {
		return u.post(t, "/message", url.Values{"as": {as}, "channel": {"C0PUBLISH"}, "text": {text}})
	}
	if code, body := send("U0BOB", "/deploy now"); code != http.StatusBadRequest || !strings.Contains(body["error"].(string), "/deploy is not a valid command") {
		t.Errorf("unknown command: %d %v", code, body)
	}
	if code, body := send("U0BOB", "  /approvals   pending "); code != http.StatusOK {
		t.Fatalf("command: %d %v", code, body)
	}
	cmd := a.requests()[0].Data.(slack.SlashCommand)
	if cmd.Command != "/approvals" || cmd.Text != "pending" || cmd.UserID != "U0BOB" || cmd.ChannelID != "C0PUBLISH" {
		t.Errorf("the app got %+v", cmd)
	}
	if page := u.page(t, "U0BOB", "C0PUBLISH"); !strings.Contains(page, "<strong>Nothing</strong> waits for you.") || !strings.Contains(page, "Only visible to you") {
		t.Error("bob does not see the answer to his command")
	}
	if strings.Contains(u.page(t, "U0ALICE", "C0PUBLISH"), "waits for you") {
		t.Error("alice sees the answer to bob's command")
	}

	if code, body := send("U0CAROL", "a <b> & *c*"); code != http.StatusOK {
		t.Fatalf("message: %d %v", code, body)
	}
	msgs := u.slack.Messages("C0PUBLISH")
	if last := msgs[len(msgs)-1]; last.User != "U0CAROL" || last.Text != "a &lt;b&gt; &amp; *c*" {
		t.Errorf("stored %+v, want the text escaped as Slack stores it", last)
	}
	if page := u.page(t, "U0ALICE", "C0PUBLISH"); !strings.Contains(page, "a &lt;b&gt; &amp; <strong>c</strong>") || !strings.Contains(page, "Carol Chen") {
		t.Error("alice does not see carol's message")
	}
}

// sse reads server-sent events.
type sse struct {
	events chan [2]string
	body   io.Closer
}

func openEvents(t *testing.T, u *ui, as, channel string) *sse {
	t.Helper()
	res, err := http.Get(u.url + "/events?" + url.Values{"as": {as}, "c": {channel}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); res.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("GET /events = %d %s", res.StatusCode, ct)
	}
	s := &sse{events: make(chan [2]string, 64), body: res.Body}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		var name string
		for sc.Scan() {
			line := sc.Text()
			if n, ok := strings.CutPrefix(line, "event: "); ok {
				name = n
			} else if d, ok := strings.CutPrefix(line, "data: "); ok {
				s.events <- [2]string{name, d}
			}
		}
	}()
	t.Cleanup(func() { _ = res.Body.Close() })
	return s
}

// next returns the next event called name, skipping others.
func (s *sse) next(t *testing.T, name string) (html string, ok bool) {
	t.Helper()
	timeout := time.After(waitTimeout)
	for {
		select {
		case e, open := <-s.events:
			if !open {
				return "", false
			}
			if e[0] != name {
				continue
			}
			var f struct{ Key, HTML string }
			if err := json.Unmarshal([]byte(e[1]), &f); err != nil || f.Key == "" {
				t.Fatalf("event %s: %s", name, e[1])
			}
			return f.HTML, true
		case <-timeout:
			t.Fatalf("no %s event within %v", name, waitTimeout)
		}
	}
}

func TestEvents(t *testing.T) {
	t.Parallel()
	u := newUI(t, fakeslack.Options{}, localui.Options{})
	s := openEvents(t, u, "U0BOB", "C0PUBLISH")
	for _, part := range []string{"channels", "messages", "modal"} {
		if _, ok := s.next(t, part); !ok {
			t.Fatalf("no %s at the start", part)
		}
	}
	if _, err := u.slack.PostMessageAs("U0ALICE", "C0PUBLISH", "", "fresh news"); err != nil {
		t.Fatal(err)
	}
	if html, _ := s.next(t, "messages"); !strings.Contains(html, "fresh news") {
		t.Errorf("the messages sent after a post miss it: %s", html)
	}
	if _, err := u.api.OpenView(u.slack.NewTrigger("U0BOB"), slack.ModalViewRequest{
		Type: slack.VTModal, Title: slack.NewTextBlockObject(slack.PlainTextType, "For bob", false, false)}); err != nil {
		t.Fatal(err)
	}
	if html, _ := s.next(t, "modal"); !strings.Contains(html, "For bob") {
		t.Errorf("the modal sent after views.open: %s", html)
	}
	u.h.Close()
	for range s.events { // Close ends the stream
	}
	res, err := http.Get(u.url + "/events")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a stream after Close: %d", res.StatusCode)
	}
}
