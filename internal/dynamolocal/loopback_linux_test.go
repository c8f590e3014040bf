package dynamolocal

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestListensOnLoopbackOnly reads the kernel's table of listening sockets:
// the server's port is bound to 127.0.0.1 and nothing else.
func TestListensOnLoopbackOnly(t *testing.T) {
	t.Parallel()
	s := startForTest(t, Options{})
	if ok, why := s.LoopbackOnly(); !ok {
		t.Fatalf("LoopbackOnly() = false (%s); this machine has javac, so it must bind 127.0.0.1", why)
	}
	addrs := listeners(t, port(t, s))
	if len(addrs) == 0 {
		t.Fatalf("no listening socket on the server's port")
	}
	for _, a := range addrs {
		if a != "0100007F" && a != "0000000000000000FFFF00000100007F" {
			t.Errorf("listens on %s, want 127.0.0.1 only", a)
		}
	}
}

// TestWithoutJavacNoWebPageCanCallIt starts the jar as it is (no javac to
// build the launcher): it listens on every interface and says so, and
// still refuses a web page's cross-origin request.
func TestWithoutJavacNoWebPageCanCallIt(t *testing.T) {
	t.Parallel()
	s := startForTest(t, Options{Javac: "/nonexistent/javac"})
	if ok, why := s.LoopbackOnly(); ok || !strings.Contains(why, "javac") {
		t.Errorf("LoopbackOnly() = %v, %q; want false naming javac", ok, why)
	}
	wildcard := false
	for _, a := range listeners(t, port(t, s)) {
		wildcard = wildcard || strings.Trim(a, "0") == ""
	}
	if !wildcard {
		t.Errorf("the jar alone was expected to listen on every interface; the test no longer shows the fallback")
	}
	for _, origin := range []string{"http://evil.example", "http://127.0.0.1:9999", "null"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodOptions, s.Endpoint()+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type,x-amz-target,authorization")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got == "*" || got == origin {
			t.Errorf("a page at %s may call DynamoDB Local: Access-Control-Allow-Origin %q", origin, got)
		}
	}
}

func startForTest(t *testing.T, opts Options) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	s, err := StartWith(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func port(t *testing.T, s *Server) int {
	t.Helper()
	u, err := url.Parse(s.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// listeners returns the hex local addresses of the TCP sockets listening
// on port, from /proc/net/tcp and tcp6.
func listeners(t *testing.T, port int) []string {
	t.Helper()
	var addrs []string
	hexPort := strings.ToUpper(strconv.FormatInt(int64(port), 16))
	for len(hexPort) < 4 {
		hexPort = "0" + hexPort
	}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 4 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			addr, p, ok := strings.Cut(fields[1], ":")
			if ok && p == hexPort {
				addrs = append(addrs, addr)
			}
		}
		f.Close()
	}
	return addrs
}
