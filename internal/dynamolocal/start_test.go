package dynamolocal

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A JVM starved of CPU answers late: the caller's deadline, not a fixed
// one, says how long it may take.
func TestStartWaitsAsLongAsTheCallerAllows(t *testing.T) {
	if testing.Short() {
		t.Skip("waits over 30 s for a start that is slow on purpose")
	}
	java, err := findJava()
	if err != nil {
		t.Skip(err)
	}
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	slow := "#!/bin/sh\nsleep 32\nexec " + java + ` "$@"` + "\n"
	if err := os.WriteFile(filepath.Join(home, "bin", "java"), []byte(slow), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JAVA_HOME", home)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	s, err := StartWith(ctx, Options{})
	if err != nil {
		t.Fatalf("a start that takes over 30 s, with 3 minutes allowed: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
}

// The first answer of a busy JVM can take seconds; a poll that gave up
// after one second would never see it.
func TestWaitReadyWaitsForASlowAnswer(t *testing.T) {
	t.Parallel()
	const delay = 1500 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay): // a slow server, not synchronisation
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = w.Write([]byte(`{"TableNames":[]}`))
	}))
	t.Cleanup(srv.Close)
	s := &Server{endpoint: srv.URL, exited: make(chan struct{})}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := s.waitReady(ctx); err != nil {
		t.Fatalf("waitReady on a server answering after %s: %v", delay, err)
	}
}

func TestWaitReadyStopsWhenTheProcessExits(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // answers nothing while the test runs
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	s := &Server{endpoint: srv.URL, exited: make(chan struct{})}
	close(s.exited)
	if err := s.waitReady(t.Context()); err == nil || err.Error() != "DynamoDB Local exited during start-up" {
		t.Fatalf("waitReady after the process exited = %v, want it to say so", err)
	}
}
