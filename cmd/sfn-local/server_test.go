package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A request for another Host is refused: a web page must not reach the
// engine through DNS rebinding. Loopback names pass, whatever the port.
func TestRunRefusesForeignHosts(t *testing.T) {
	s := startRun(t)
	port := s.url[strings.LastIndex(s.url, ":")+1:]
	tests := []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:" + port, true},
		{"localhost:" + port, true},
		{"LocalHost:" + port, true},
		{"[::1]:" + port, true},
		{"127.0.0.2:8083", true},
		{"localhost", true},
		{"attacker.example:" + port, false},
		{"attacker.example", false},
		{"127.0.0.1.nip.io:" + port, false},
		{"localhost.attacker.example:" + port, false},
		{"10.0.0.1:" + port, false},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(http.MethodPost, s.url, strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = tt.host
		req.Header.Set("X-Amz-Target", "AWSStepFunctions.ListStateMachines")
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("Host %q: %v", tt.host, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case tt.ok && resp.StatusCode != http.StatusOK:
			t.Errorf("Host %q: %d %s, want 200", tt.host, resp.StatusCode, body)
		case !tt.ok:
			var e struct{ Type, Message string }
			_ = json.Unmarshal(body, &e)
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Amzn-ErrorType") != "AccessDeniedException" ||
				!strings.Contains(e.Message, "DNS rebinding") || !strings.Contains(e.Message, "127.0.0.1, [::1] or localhost") {
				t.Errorf("Host %q: %d %s, want 403 AccessDeniedException explaining why", tt.host, resp.StatusCode, body)
			}
		}
	}
	if !strings.Contains(s.logs.String(), `"msg":"request refused: its Host is not a loopback name","host":"attacker.example:`+port+`"`) {
		t.Errorf("no refusal logged:\n%s", s.logs)
	}
}

// trickle writes prefix, then one byte of rest every 10 ms, until the
// server closes the connection or rest is spent; it returns how many
// bytes of rest it wrote.
func trickle(t *testing.T, url, prefix, rest string) int {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	closed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, conn) // returns once the server closes it
		close(closed)
	}()
	if _, err := io.WriteString(conn, prefix); err != nil {
		t.Fatal(err)
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for i := range len(rest) {
		select {
		case <-closed:
			return i
		case <-tick.C:
		}
		if _, err := io.WriteString(conn, rest[i:i+1]); err != nil {
			return i
		}
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
	}
	return len(rest)
}

// A client trickling its request a byte at a time is cut off at the read
// timeout, headers or body; an idle keep-alive connection at the idle
// timeout.
func TestRunCutsOffSlowClients(t *testing.T) {
	s := startRun(t, "-read-timeout", "300ms", "-idle-timeout", "300ms")
	const total = 500 // 5 s at a byte per 10 ms: far past 300 ms
	t.Run("headers", func(t *testing.T) {
		t.Parallel()
		headers := "X-Amz-Target: AWSStepFunctions.ListStateMachines\r\nX-Pad: " + strings.Repeat("a", total) + "\r\n\r\n"
		if n := trickle(t, s.url, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n", headers); n >= len(headers) {
			t.Errorf("the server read all %d trickled header bytes", n)
		}
	})
	t.Run("body", func(t *testing.T) {
		t.Parallel()
		body := `{"maxResults":1` + strings.Repeat(" ", total) + `}`
		prefix := "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: AWSStepFunctions.ListStateMachines\r\n" +
			"Content-Type: application/x-amz-json-1.0\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n"
		if n := trickle(t, s.url, prefix, body); n >= len(body) {
			t.Errorf("the server read all %d trickled body bytes", n)
		}
	})
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		conn, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: AWSStepFunctions.ListStateMachines\r\n"+
			"Content-Type: application/x-amz-json-1.0\r\nContent-Length: 2\r\n\r\n{}"); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(conn)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("response %d (close %v), want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
		}
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := r.ReadByte(); err != io.EOF {
			t.Errorf("reading the idle connection = %v, want EOF once the server closed it", err)
		}
	})
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
