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

// StartWith waits as long as its caller allows: a fixed limit (it was 30 s)
// failed every start of a JVM starved of CPU on a busy machine. Without a
// deadline of the caller's, startTimeout only stops a hung start.
func TestStartContextIsTheCallersDeadline(t *testing.T) {
	t.Parallel()
	far := time.Now().Add(time.Hour)
	ctx, cancel := context.WithDeadline(t.Context(), far)
	defer cancel()
	got, stop := startContext(ctx)
	defer stop()
	if d, ok := got.Deadline(); !ok || !d.Equal(far) {
		t.Errorf("deadline with the caller's of %s = %s, %v; want the caller's", far, d, ok)
	}
	got, stop = startContext(context.Background())
	defer stop()
	if d, ok := got.Deadline(); !ok || time.Until(d) > startTimeout || time.Until(d) < startTimeout-time.Minute {
		t.Errorf("deadline without the caller's = %s from now, want about %s", time.Until(d), startTimeout)
	}
}

// A JVM that is slow to start (here: a java that waits 3 s first) is
// waited for.
func TestStartWaitsForASlowJVM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a JVM")
	}
	java, err := findJava()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	slow := "#!/bin/sh\nsleep 3\nexec " + java + ` "$@"` + "\n"
	if err := os.WriteFile(filepath.Join(home, "bin", "java"), []byte(slow), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JAVA_HOME", home)
	s, err := StartWith(t.Context(), Options{})
	if err != nil {
		t.Fatalf("a start that takes over 3 s: %v", err)
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
