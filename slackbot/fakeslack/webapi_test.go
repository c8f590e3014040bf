package fakeslack_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

func TestAuthTest(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	got, err := newAPI(t, s, s.BotToken()).AuthTest()
	if err != nil {
		t.Fatalf("AuthTest: %v", err)
	}
	if got.UserID != "UBOT" || got.BotID != "BBOT" || got.TeamID != "T0FAKE" || got.URL != s.URL() {
		t.Errorf("AuthTest = %+v, want UBOT/BBOT/T0FAKE and the workspace URL %s", got, s.URL())
	}
}

func TestAuthErrors(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	tests := []struct {
		name, token, want string
	}{
		{"wrong token", "xoxb-wrong-secret", "invalid_auth"},
		{"missing token", "", "not_authed"},
		{"app token on bot method", s.AppToken(), "not_allowed_token_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newAPI(t, s, tt.token)
			if _, err := api.AuthTest(); err == nil || err.Error() != tt.want {
				t.Errorf("AuthTest error = %v, want %s", err, tt.want)
			}
			if _, _, err := api.PostMessage("C1", slack.MsgOptionText("hi", false)); err == nil || err.Error() != tt.want {
				t.Errorf("PostMessage error = %v, want %s", err, tt.want)
			}
			if _, err := api.OpenView(s.NewTrigger("U1"), modal("cb")); err == nil || err.Error() != tt.want {
				t.Errorf("OpenView error = %v, want %s", err, tt.want)
			}
		})
	}
}

func TestErrorsNeverEchoTokens(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	const secret = "xoxb-1234-very-secret"
	requests := []*http.Request{
		mustRequest(t, s.APIURL()+"chat.postMessage", "application/x-www-form-urlencoded",
			url.Values{"token": {secret}, "channel": {"C1"}, "text": {"x"}}.Encode(), ""),
		mustRequest(t, s.APIURL()+"views.open", "application/json", `{"trigger_id":"x","view":{}}`, secret),
		mustRequest(t, s.APIURL()+"apps.connections.open", "application/json", "", "xapp-1-also-secret"),
	}
	for _, req := range requests {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", req.URL.Path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), "secret") {
			t.Errorf("%s echoed a token: %s", req.URL.Path, body)
		}
		if !strings.Contains(string(body), `"invalid_auth"`) {
			t.Errorf("%s body = %s, want invalid_auth", req.URL.Path, body)
		}
	}
}

func mustRequest(t *testing.T, u, contentType, body, bearer string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	return req
}

func approvalBlocks() []slack.Block {
	return []slack.Block{
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, "*Deploy* needs approval", false, false), nil, nil),
		slack.NewActionBlock("req-42",
			slack.NewButtonBlockElement("approve_1", "req-42:1", slack.NewTextBlockObject(slack.PlainTextType, "Approve draft 1", false, false)),
			slack.NewButtonBlockElement("approve_2", "req-42:2", slack.NewTextBlockObject(slack.PlainTextType, "Approve draft 2", false, false)),
			slack.NewButtonBlockElement("reject", "req-42", slack.NewTextBlockObject(slack.PlainTextType, "Reject", false, false)),
		),
	}
}

func TestChatRoundTrip(t *testing.T) {
	s := newServer(t, fakeslack.Options{Now: newClock().Now})
	api := newAPI(t, s, s.BotToken())

	channel, ts, err := api.PostMessage("C1", slack.MsgOptionText("Deploy needs approval", false), slack.MsgOptionBlocks(approvalBlocks()...))
	if err != nil {
		t.Fatalf("PostMessage: %v", err)
	}
	if channel != "C1" || ts != "1700000000.000000" {
		t.Errorf("PostMessage = %s %s, want C1 1700000000.000000", channel, ts)
	}
	_, replyTS, err := api.PostMessage("C1", slack.MsgOptionText("threaded", false), slack.MsgOptionTS(ts))
	if err != nil {
		t.Fatalf("PostMessage reply: %v", err)
	}
	if replyTS <= ts {
		t.Errorf("reply ts %s not after %s", replyTS, ts)
	}
	if _, _, _, err := api.UpdateMessage("C1", ts, slack.MsgOptionText("Approved by U1", false), slack.MsgOptionBlocks()); err != nil {
		t.Fatalf("UpdateMessage: %v", err)
	}
	ephTS, err := api.PostEphemeral("C1", "U9", slack.MsgOptionText("You are not an approver", false))
	if err != nil {
		t.Fatalf("PostEphemeral: %v", err)
	}

	got, ok := s.Message("C1", ts)
	want := fakeslack.Message{Channel: "C1", TS: ts, User: "UBOT", Text: "Approved by U1", Blocks: json.RawMessage("[]"), Updates: 1, Edited: time.Unix(1700000000, 0)}
	if !ok {
		t.Fatalf("Message(C1, %s) not found", ts)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("updated message (-want +got):\n%s", diff)
	}
	if h := s.History("C1", ts); len(h) != 1 || len(fakeslack.ButtonActions(h[0].Blocks)) != 3 {
		t.Errorf("History = %+v, want the original with 3 buttons", h)
	}
	if got := s.Replies("C1", ts); len(got) != 1 || got[0].Text != "threaded" || got[0].ThreadTS != ts {
		t.Errorf("Replies = %+v, want the threaded reply", got)
	}
	if got := len(s.Messages("C1")); got != 2 {
		t.Errorf("len(Messages) = %d, want 2", got)
	}
	wantEph := []fakeslack.Message{{Channel: "C1", TS: ephTS, User: "UBOT", Text: "You are not an approver", Ephemeral: true, To: "U9"}}
	if diff := cmp.Diff(wantEph, s.Ephemerals("U9")); diff != "" {
		t.Errorf("Ephemerals (-want +got):\n%s", diff)
	}
	if got := s.Calls("chat.postMessage"); got != 2 {
		t.Errorf("Calls(chat.postMessage) = %d, want 2", got)
	}
}

func TestChatErrors(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	humanTS := s.PostMessage("C1", "hello from a person")
	_, botTS, err := api.PostMessage("C1", slack.MsgOptionText("bot", false))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 300)
	var tooLong []slack.Block
	for range 45 {
		tooLong = append(tooLong, slack.NewSectionBlock(slack.NewTextBlockObject(slack.PlainTextType, long, false, false), nil, nil))
	}
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"update a person's message", func() error {
			_, _, _, err := api.UpdateMessage("C1", humanTS, slack.MsgOptionText("hijack", false))
			return err
		}, "cant_update_message"},
		{"update unknown ts", func() error {
			_, _, _, err := api.UpdateMessage("C1", "1.000001", slack.MsgOptionText("x", false))
			return err
		}, "message_not_found"},
		{"update in another channel", func() error {
			_, _, _, err := api.UpdateMessage("C2", botTS, slack.MsgOptionText("x", false))
			return err
		}, "message_not_found"},
		{"button text over 75", func() error {
			b := slack.NewActionBlock("a", slack.NewButtonBlockElement("x", "v", slack.NewTextBlockObject(slack.PlainTextType, strings.Repeat("a", 76), false, false)))
			_, _, err := api.PostMessage("C1", slack.MsgOptionBlocks(b))
			return err
		}, "invalid_blocks"},
		{"blocks over 13000 characters", func() error {
			_, _, err := api.PostMessage("C1", slack.MsgOptionBlocks(tooLong...))
			return err
		}, "msg_blocks_too_long"},
		{"no text", func() error {
			_, _, err := api.PostMessage("C1")
			return err
		}, "no_text"},
		{"reply to unknown thread", func() error {
			_, _, err := api.PostMessage("C1", slack.MsgOptionText("x", false), slack.MsgOptionTS("9.000009"))
			return err
		}, "thread_not_found"},
		{"ephemeral with bad blocks", func() error {
			b := slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, strings.Repeat("h", 151), false, false))
			_, err := api.PostEphemeral("C1", "U1", slack.MsgOptionBlocks(b))
			return err
		}, "invalid_blocks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want %s", err, tt.want)
			}
		})
	}
	if got, _ := s.Message("C1", humanTS); got.Text != "hello from a person" || got.Updates != 0 {
		t.Errorf("person's message changed: %+v", got)
	}
}

func TestInvalidBlocksExplainsWhere(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	b := slack.NewActionBlock("a", slack.NewButtonBlockElement("x", "v", slack.NewTextBlockObject(slack.PlainTextType, strings.Repeat("a", 76), false, false)))
	_, _, err := newAPI(t, s, s.BotToken()).PostMessage("C1", slack.MsgOptionBlocks(b))
	var resp slack.SlackErrorResponse
	if !errors.As(err, &resp) {
		t.Fatalf("error = %v, want slack.SlackErrorResponse", err)
	}
	want := []string{"[ERROR] must be less than 76 characters [json-pointer:/blocks/0/elements/0/text/text]"}
	if diff := cmp.Diff(want, resp.ResponseMetadata.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestLongTextIsTruncated(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	_, ts, err := newAPI(t, s, s.BotToken()).PostMessage("C1", slack.MsgOptionText(strings.Repeat("é", 40001), false))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Message("C1", ts); len([]rune(got.Text)) != 40000 {
		t.Errorf("stored %d characters, want 40000", len([]rune(got.Text)))
	}
}

func TestRateLimit(t *testing.T) {
	s := newServer(t, fakeslack.Options{RateLimits: map[string]fakeslack.RateLimit{
		"chat.update": {Burst: 2, Per: time.Minute},
	}})
	api := newAPI(t, s, s.BotToken())
	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("x", false))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, _, _, err := api.UpdateMessage("C1", ts, slack.MsgOptionText("y", false)); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
	_, _, _, err = api.UpdateMessage("C1", ts, slack.MsgOptionText("z", false))
	var rl *slack.RateLimitedError
	if !errors.As(err, &rl) {
		t.Fatalf("third update error = %v, want *slack.RateLimitedError", err)
	}
	if rl.RetryAfter < time.Second || rl.RetryAfter > time.Minute {
		t.Errorf("RetryAfter = %v, want between 1s and 1m", rl.RetryAfter)
	}
	if got := s.Calls("chat.update"); got != 3 {
		t.Errorf("Calls(chat.update) = %d, want 3", got)
	}
	if got, _ := s.Message("C1", ts); got.Updates != 2 {
		t.Errorf("Updates = %d, want 2", got.Updates)
	}
	if _, _, err := api.PostMessage("C1", slack.MsgOptionText("other methods are not limited", false)); err != nil {
		t.Errorf("PostMessage: %v", err)
	}
}

func TestFailMethod(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	post := func() error {
		_, _, err := api.PostMessage("C1", slack.MsgOptionText("x", false))
		return err
	}
	wantStatus := func(err error, code int) {
		t.Helper()
		var sc slack.StatusCodeError
		if !errors.As(err, &sc) || sc.Code != code {
			t.Errorf("error = %v, want StatusCodeError %d", err, code)
		}
	}

	s.FailMethod("chat.postMessage", 2, http.StatusServiceUnavailable)
	wantStatus(post(), 503)
	wantStatus(post(), 503)
	if err := post(); err != nil {
		t.Errorf("third post: %v", err)
	}

	s.FailMethod("chat.postMessage", -1, http.StatusInternalServerError)
	for range 3 {
		wantStatus(post(), 500)
	}
	s.Heal("chat.postMessage")
	if err := post(); err != nil {
		t.Errorf("post after Heal: %v", err)
	}
	if got, want := len(s.Messages("C1")), 2; got != want {
		t.Errorf("stored %d messages, want %d", got, want)
	}
}

func TestFaultsHook(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		fault       fakeslack.Fault
		wantPosted  bool
		wantStatus  int
		wantLimited time.Duration
	}{
		{"through", fakeslack.Fault{}, true, 0, 0},
		{"outage", fakeslack.Fault{Status: http.StatusServiceUnavailable}, false, 503, 0},
		{"answer lost", fakeslack.Fault{Status: http.StatusInternalServerError, Applied: true}, true, 500, 0},
		{"rate limited", fakeslack.Fault{Status: http.StatusTooManyRequests, RetryAfter: 7, Applied: true}, false, 0, 7 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var asked []string
			var mu sync.Mutex
			s := newServer(t, fakeslack.Options{Faults: func(method string, params url.Values) fakeslack.Fault {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, method)
				if params.Get("token") != "" {
					t.Errorf("Faults got the token")
				}
				if method == "chat.postMessage" && params.Get("channel") != "C1" {
					t.Errorf("Faults got %v, want the post's parameters", params)
				}
				if method == "chat.postMessage" {
					return tt.fault
				}
				return fakeslack.Fault{}
			}})
			api := newAPI(t, s, s.BotToken())
			_, _, err := api.PostMessage("C1", slack.MsgOptionText("x", false))
			var sc slack.StatusCodeError
			var rl *slack.RateLimitedError
			switch {
			case tt.wantStatus != 0 && (!errors.As(err, &sc) || sc.Code != tt.wantStatus):
				t.Errorf("error = %v, want status %d", err, tt.wantStatus)
			case tt.wantLimited != 0 && (!errors.As(err, &rl) || rl.RetryAfter != tt.wantLimited):
				t.Errorf("error = %v, want rate limited for %v", err, tt.wantLimited)
			case tt.wantStatus == 0 && tt.wantLimited == 0 && err != nil:
				t.Errorf("error = %v", err)
			}
			if posted := len(s.Messages("C1")) == 1; posted != tt.wantPosted {
				t.Errorf("posted = %v, want %v", posted, tt.wantPosted)
			}
			if _, err := api.AuthTest(); err != nil {
				t.Errorf("auth.test with no fault: %v", err)
			}
			wantLimited := 0
			if tt.wantLimited != 0 {
				wantLimited = 1
			}
			if got := s.Limited("chat.postMessage"); got != wantLimited {
				t.Errorf("Limited = %d, want %d", got, wantLimited)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(asked, []string{"chat.postMessage", "auth.test"}) {
				t.Errorf("Faults was asked about %v", asked)
			}
		})
	}
}

func TestUsergroupsAndUsers(t *testing.T) {
	s := newServer(t, fakeslack.Options{Groups: map[string][]string{"S1": {"U1", "U2"}}})
	api := newAPI(t, s, s.BotToken())
	got, err := api.GetUserGroupMembers("S1")
	if err != nil {
		t.Fatalf("GetUserGroupMembers: %v", err)
	}
	if diff := cmp.Diff([]string{"U1", "U2"}, got); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
	if _, err := api.GetUserGroupMembers("S404"); err == nil || err.Error() != "no_such_subteam" {
		t.Errorf("unknown group error = %v, want no_such_subteam", err)
	}
	s.SetGroup("S1", []string{"U3"})
	if got, _ := api.GetUserGroupMembers("S1"); !cmp.Equal(got, []string{"U3"}) {
		t.Errorf("after SetGroup members = %v, want [U3]", got)
	}
	u, err := api.GetUserInfo("U1")
	if err != nil {
		t.Fatalf("GetUserInfo: %v", err)
	}
	if u.ID != "U1" || u.TeamID != "T0FAKE" {
		t.Errorf("user = %+v", u)
	}
}

func TestResponseURL(t *testing.T) {
	s := newServer(t, fakeslack.Options{AckTimeout: time.Minute})
	api := newAPI(t, s, s.BotToken())
	b := startBot(t, s)
	_, ts, err := api.PostMessage("C1", slack.MsgOptionText("request", false), slack.MsgOptionBlocks(approvalBlocks()...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Click("U1", "C1", ts, "reject", ""); err != nil {
		t.Fatalf("Click: %v", err)
	}
	cb := b.next(t, "interactive").Data.(slack.InteractionCallback)

	if _, _, err := api.PostMessage("", slack.MsgOptionReplaceOriginal(cb.ResponseURL), slack.MsgOptionText("Rejected", false)); err != nil {
		t.Fatalf("replace_original: %v", err)
	}
	if got, _ := s.Message("C1", ts); got.Text != "Rejected" || got.Updates != 1 {
		t.Errorf("message after replace_original = %+v", got)
	}
	for i := range 4 {
		_, _, err := api.PostMessage("", slack.MsgOptionResponseURL(cb.ResponseURL, slack.ResponseTypeEphemeral), slack.MsgOptionText("note", false))
		if err != nil {
			t.Fatalf("use %d: %v", i+2, err)
		}
	}
	_, _, err = api.PostMessage("", slack.MsgOptionResponseURL(cb.ResponseURL, slack.ResponseTypeEphemeral), slack.MsgOptionText("sixth", false))
	if err == nil || err.Error() != "used_url" {
		t.Errorf("sixth use error = %v, want used_url", err)
	}
	if got := len(s.Ephemerals("U1")); got != 4 {
		t.Errorf("len(Ephemerals) = %d, want 4", got)
	}
	if got := len(s.ResponsePosts()); got != 6 {
		t.Errorf("len(ResponsePosts) = %d, want 6", got)
	}
}

// postJSON posts raw JSON with the bot token, for wire details the client hides.
func postJSON(t *testing.T, s *fakeslack.Server, method, body string) map[string]any {
	t.Helper()
	req := mustRequest(t, s.APIURL()+method, "application/json", body, s.BotToken())
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestUnknownMethod(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	got := postJSON(t, s, "chat.scheduleMessage", `{}`)
	if got["error"] != "unknown_method" {
		t.Errorf("got %v, want unknown_method", got)
	}
}

func TestParamsRecordsCallsWithoutTheToken(t *testing.T) {
	s := newServer(t, fakeslack.Options{})
	api := newAPI(t, s, s.BotToken())
	if _, _, err := api.PostMessage("C1", slack.MsgOptionText("hi", false), slack.MsgOptionLinkNames(true)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := api.PostMessage("C1", slack.MsgOptionText("again", false)); err != nil {
		t.Fatal(err)
	}
	got := s.Params("chat.postMessage")
	if len(got) != 2 {
		t.Fatalf("%d calls recorded, want 2", len(got))
	}
	if got[0].Get("text") != "hi" || got[0].Get("link_names") != "true" || got[0].Has("token") {
		t.Errorf("first call = %v, want text hi, link_names true and no token", got[0])
	}
	if got[1].Has("link_names") || got[1].Get("text") != "again" {
		t.Errorf("second call = %v", got[1])
	}
	got[0].Set("text", "changed")
	if s.Params("chat.postMessage")[0].Get("text") != "hi" {
		t.Error("Params returned the fake's own copy")
	}
}

func TestRateLimitBurstPerChannel(t *testing.T) {
	s := newServer(t, fakeslack.Options{RateLimits: map[string]fakeslack.RateLimit{
		// Six a minute, at most two at once: one comes back every 10 s.
		"chat.postMessage": {Limit: 6, Per: time.Minute, Burst: 2, PerChannel: true},
	}})
	api := newAPI(t, s, s.BotToken())
	post := func(channel string) error {
		_, _, err := api.PostMessage(channel, slack.MsgOptionText("x", false))
		return err
	}
	for i := range 2 {
		if err := post("C1"); err != nil {
			t.Fatalf("post %d: %v", i, err)
		}
	}
	var rl *slack.RateLimitedError
	if err := post("C1"); !errors.As(err, &rl) || rl.RetryAfter != 10*time.Second {
		t.Fatalf("third post in a burst of two: %v, want a 429 with Retry-After 10s", err)
	}
	if err := post("C2"); err != nil {
		t.Errorf("another channel has its own allowance: %v", err)
	}
	if got := len(s.Messages("C1")); got != 2 {
		t.Errorf("%d messages in C1, want 2: a limited call posts nothing", got)
	}
	if got := s.Limited("chat.postMessage"); got != 1 {
		t.Errorf("Limited = %d, want 1", got)
	}
}

func TestRateLimitFloor(t *testing.T) {
	tests := []struct {
		rl   fakeslack.RateLimit
		want time.Duration
	}{
		{fakeslack.RateLimit{Limit: 1200, Per: time.Minute, Burst: 20}, 19 * time.Second},
		{fakeslack.RateLimit{Limit: 50, Per: time.Minute}, 7 * time.Minute},
		{fakeslack.RateLimit{Burst: 20, Per: time.Second}, 19 * time.Second},
		{fakeslack.RateLimit{Limit: 50, Per: time.Minute, Burst: 10}, 468 * time.Second},
	}
	for _, tt := range tests {
		if got := tt.rl.Floor(400); got < tt.want-time.Millisecond || got > tt.want+time.Millisecond {
			t.Errorf("%+v: Floor(400) = %s, want %s", tt.rl, got, tt.want)
		}
	}
}
