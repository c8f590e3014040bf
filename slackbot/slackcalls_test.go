package slackbot

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/internal/metrics"
)

func TestSlackTransportCountsByMethodAndStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		path       string
		status     int
		body       string
		wantMethod string
		wantStatus string
	}{
		{"ok first", "/api/chat.update", 200, `{"ok":true,"channel":"C1","ts":"1.2"}`, "chat.update", "ok"},
		{"ok last", "/api/chat.postMessage", 200, `{"channel":"C1","message":{"text":"{\"ok\":false}"},"ok":true}` + "\n", "chat.postMessage", "ok"},
		{"error code", "/api/chat.update", 200, `{"error":"channel_not_found","ok":false}`, "chat.update", "channel_not_found"},
		{"rate limited", "/api/chat.update", 429, `{"ok":false,"error":"ratelimited"}`, "chat.update", "ratelimited"},
		{"outage", "/api/usergroups.users.list", 503, `<html>down</html>`, "usergroups.users.list", "http_503"},
		{"not JSON", "/api/auth.test", 200, `<html>proxy</html>`, "auth.test", "unreadable"},
		{"odd error code", "/api/auth.test", 200, `{"ok":false,"error":"Bad Thing xoxb-1234"}`, "auth.test", "unreadable"},
		{"response URL", "/commands/T1/123/abcdef", 200, `{"ok":true}`, "response_url", "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			reg := metrics.NewRegistry()
			m, err := NewMetrics(reg)
			if err != nil {
				t.Fatal(err)
			}
			client := &http.Client{Transport: m.SlackTransport(http.DefaultTransport)}
			resp, err := client.Post(srv.URL+tt.path, "application/x-www-form-urlencoded", strings.NewReader("token=xoxb-secret"))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if string(got) != tt.body {
				t.Errorf("the client read %q, want the body untouched", got)
			}
			ms := measured{reg: reg}
			if v := ms.value(t, "approvals_slack_api_calls_total", "method", tt.wantMethod, "status", tt.wantStatus); v != 1 {
				t.Errorf("calls{method=%s,status=%s} = %v, want 1", tt.wantMethod, tt.wantStatus, v)
			}
		})
	}
}

// A call that never got an answer counts as a transport error; an answer
// closed unread counts once, as unreadable.
func TestSlackTransportCountsFailuresOnce(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	addr := srv.URL
	reg := metrics.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: m.SlackTransport(http.DefaultTransport)}
	resp, err := client.Get(addr + "/api/chat.getPermalink")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	_ = resp.Body.Close()
	srv.Close()
	if _, err := client.Get(addr + "/api/chat.getPermalink"); err == nil {
		t.Fatal("a call to a closed server succeeded")
	}
	ms := measured{reg: reg}
	for status, want := range map[string]float64{"unreadable": 1, "transport_error": 1, "ok": 0} {
		if v := ms.value(t, "approvals_slack_api_calls_total", "method", "chat.getPermalink", "status", status); v != want {
			t.Errorf("status %s = %v, want %v", status, v, want)
		}
	}
}

// The plain checks accept exactly what the regular expressions they
// replaced accepted.
func TestMethodAndErrorCodeShapes(t *testing.T) {
	t.Parallel()
	method := regexp.MustCompile(`^[a-z]+(\.[a-zA-Z]+)+$`)
	code := regexp.MustCompile(`^[a-z0-9_]{1,64}$`)
	parts := []string{"", "a", "chat", "update", "postMessage", "X", ".", "..", "_", "9", "-", " ", "é", "users", "list"}
	var corpus []string
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				corpus = append(corpus, a+b+c, a+"."+b+c, a+"."+b+"."+c)
			}
		}
	}
	for n := 60; n <= 68; n++ {
		corpus = append(corpus, strings.Repeat("a_9", n)[:n])
	}
	for _, s := range corpus {
		if got, want := isMethodName(s), method.MatchString(s); got != want {
			t.Errorf("isMethodName(%q) = %v, want %v", s, got, want)
		}
		if got, want := isErrorCode(s), code.MatchString(s); got != want {
			t.Errorf("isErrorCode(%q) = %v, want %v", s, got, want)
		}
	}
}
