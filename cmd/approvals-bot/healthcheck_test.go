package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// -healthcheck through run(): nil (exit 0) only when /readyz says ready,
// an error with a one-line reason (exit 1) otherwise.
func TestHealthcheckThroughRun(t *testing.T) {
	t.Parallel()
	serve := func(status int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/readyz" {
				http.NotFound(w, r)
				return
			}
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
		return port
	}
	ready := serve(200, "ready\n")
	notReady := serve(503, "not ready: DynamoDB has not answered for 1m5s\n")
	broken := serve(500, "<html>oops</html>")
	closed := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		_ = ln.Close()
		return port
	}()

	tests := []struct {
		name    string
		addr    string
		wantErr string
	}{
		{"ready, any interface", ":" + ready, ""},
		{"ready, loopback", "127.0.0.1:" + ready, ""},
		{"ready, unspecified", "0.0.0.0:" + ready, ""},
		{"not ready", ":" + notReady, "not ready: DynamoDB has not answered for 1m5s"},
		{"broken", ":" + broken, "not ready: 500 Internal Server Error"},
		{"nobody listening", ":" + closed, "not ready: no answer"},
		{"port 0", "127.0.0.1:0", "needs a fixed port"},
		{"not an address", "8080", "APPROVALS_HTTP_ADDR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			getenv := env(map[string]string{"APPROVALS_HTTP_ADDR": tt.addr}) // no table, no tokens
			err := run(context.Background(), []string{"-healthcheck"}, getenv, &stdout, &stderr)
			switch {
			case tt.wantErr == "" && (err != nil || stdout.String() != "ready\n"):
				t.Errorf("run = %v, stdout %q; want nil and \"ready\"", err, stdout.String())
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("run = %v, want an error saying %q", err, tt.wantErr)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Errorf("the reason is more than one line: %q", err)
			}
		})
	}
}

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}
