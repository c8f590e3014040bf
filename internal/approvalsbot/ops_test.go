package approvalsbot

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/metrics"
)

func TestOpsRoutes(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
	c := metrics.NewCounter("approvals_test_total", "A test counter.")
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	c.Inc()
	var readiness error
	srv := httptest.NewServer(opsRoutes(func() error { return readiness }, reg))
	defer srv.Close()

	tests := []struct {
		name       string
		method     string
		path       string
		notReady   error
		wantStatus int
		wantBody   string
	}{
		{"alive", http.MethodGet, "/healthz", errors.New("connection to Slack lost 2m0s ago"), 200, "ok\n"},
		{"ready", http.MethodGet, "/readyz", nil, 200, "ready\n"},
		{"not ready", http.MethodGet, "/readyz", errors.New("connection to Slack lost 2m0s ago"), 503, "not ready: connection to Slack lost 2m0s ago\n"},
		{"metrics", http.MethodGet, "/metrics", nil, 200, "approvals_test_total 1"},
		{"no writes", http.MethodPost, "/readyz", nil, 405, ""},
		{"nothing else", http.MethodGet, "/debug/pprof/", nil, 404, ""},
	}
	for _, tt := range tests { // one at a time: they share readiness
		readiness = tt.notReady
		req, _ := http.NewRequest(tt.method, srv.URL+tt.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != tt.wantStatus || !strings.Contains(string(body), tt.wantBody) {
			t.Errorf("%s: %s %s = %d %q, want %d %q", tt.name, tt.method, tt.path, resp.StatusCode, body, tt.wantStatus, tt.wantBody)
		}
	}
}

func TestOpsServerRefusesATakenPort(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = startOps(ln.Addr().String(), http.NotFoundHandler(), zap.NewNop())
	if err == nil || !strings.Contains(err.Error(), "APPROVALS_HTTP_ADDR "+ln.Addr().String()) {
		t.Errorf("startOps on a taken port = %v, want an error naming APPROVALS_HTTP_ADDR", err)
	}
	s, err := startOps("127.0.0.1:0", http.NotFoundHandler(), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.stop(0); err != nil {
		t.Errorf("stop: %v", err)
	}
	if _, err := http.Get(fmt.Sprintf("http://%s/healthz", s.addr)); err == nil {
		t.Error("the server still answers after stop")
	}
}
