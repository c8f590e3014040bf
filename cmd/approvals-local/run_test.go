package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/internal/syncbuf"
)

// anyPort is every fixed address on a free port.
var anyPort = []string{"-addr", "127.0.0.1:0", "-slack-addr", "127.0.0.1:0", "-bot-addr", "127.0.0.1:0", "-sfn-addr", "127.0.0.1:0", "-s3-addr", "127.0.0.1:0"}

// waitFor polls cond until it holds, failing the test at ctx's end.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, ctx.Err())
		case <-tick.C:
		}
	}
}

var (
	sfnLine  = regexp.MustCompile(`Step Functions API\s+(http://\S+)`)
	pageLine = regexp.MustCompile(`Slack stand-in\s+(http://\S+)`)
	pidLine  = regexp.MustCompile(`DynamoDB Local\s+\S+\s+table approvals, pid (\d+)`)
)

// Ctrl-C (the context ending) stops every part run started: the servers
// answer no more, their ports are free again, and no DynamoDB Local JVM
// is left.
func TestRunStopsEverythingOnCtrlC(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stdout, stderr syncbuf.Buffer
	data := filepath.Join(t.TempDir(), "data")
	done := make(chan error, 1)
	go func() { done <- run(runCtx, append([]string{"-data", data}, anyPort...), os.Getenv, &stdout, &stderr) }()
	waitFor(ctx, t, "the banner", func() bool {
		select {
		case err := <-done:
			t.Fatalf("run returned %v before it was stopped:\n%s\n%s", err, stdout.String(), stderr.String())
		default:
		}
		return strings.Contains(stdout.String(), "Ctrl-C stops everything")
	})
	banner := stdout.String()
	for _, want := range []string{"Slack stand-in", "fake Slack API", "Step Functions API", "approvals bot", "DynamoDB Local", "data folder", data, "executions          in memory",
		"publish-with-approval", "approve-or-escalate", "batch-with-approved-retries", "export AWS_ENDPOINT_URL_SFN="} {
		if !strings.Contains(banner, want) {
			t.Errorf("the banner lacks %q:\n%s", want, banner)
		}
	}
	sfnURL, pageURL, pidText := sfnLine.FindStringSubmatch(banner), pageLine.FindStringSubmatch(banner), pidLine.FindStringSubmatch(banner)
	if sfnURL == nil || pageURL == nil || pidText == nil {
		t.Fatalf("the banner does not give the addresses and the pid:\n%s", banner)
	}
	pid, _ := strconv.Atoi(pidText[1])
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("DynamoDB Local (pid %d) is not running: %v", pid, err)
	}
	if resp, err := http.Get(pageURL[1]); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the page does not answer: %v", err)
	} else {
		resp.Body.Close()
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run = %v after Ctrl-C", err)
		}
	case <-ctx.Done():
		t.Fatal("run did not return after Ctrl-C")
	}
	if !strings.HasSuffix(stdout.String(), "Stopped.\n") {
		t.Errorf("run did not say it stopped:\n%s", stdout.String())
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("DynamoDB Local (pid %d) outlived run: %v", pid, err)
	}
	if left := processesWith(t, data); len(left) > 0 {
		t.Errorf("processes of this run are left: %v", left)
	}
	for _, u := range []string{sfnURL[1], pageURL[1]} {
		addr := strings.TrimPrefix(u, "http://")
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("%s is still taken after run returned: %v", addr, err)
			continue
		}
		ln.Close()
	}
	if stderr.String() != "" {
		t.Errorf("run wrote to stderr:\n%s", stderr.String())
	}
}

// Missing prerequisites and taken ports are one line each, saying what to
// do, all at once, before anything starts.
func TestRunNamesWhatIsMissing(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	data := filepath.Join(t.TempDir(), "data")
	env := map[string]string{"PATH": t.TempDir(), "DYNAMODB_LOCAL_DIR": t.TempDir()}
	args := append([]string{"-data", data}, anyPort...)
	args = append(args, "-sfn-addr", taken.Addr().String())
	var stdout, stderr syncbuf.Buffer
	err = run(testContext(t), args, func(k string) string { return env[k] }, &stdout, &stderr)
	want := "cannot start:\n" +
		"  - DynamoDB Local is not in DYNAMODB_LOCAL_DIR (" + env["DYNAMODB_LOCAL_DIR"] + "): make tools\n" +
		"  - Java 17 or later is not installed (DynamoDB Local runs on it): apt-get install openjdk-17-jre-headless\n" +
		"  - " + taken.Addr().String() + " (-sfn-addr, the Step Functions API) is in use by another program: stop it, or pass -sfn-addr with another port"
	if err == nil || err.Error() != want {
		t.Errorf("run = %v\nwant %s", err, want)
	}
	if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the data folder was created before the checks passed: %v", err)
	}
	if strings.Contains(stdout.String(), "running") {
		t.Errorf("run printed a banner:\n%s", stdout.String())
	}
}

// Two products cannot share a data folder.
func TestDataFolderIsLocked(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	first, err := lockData(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockData(dir); err == nil || !strings.Contains(err.Error(), "another approvals-local uses the data folder "+dir) {
		t.Errorf("second lock = %v", err)
	}
	first.release()
	again, err := lockData(dir)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	again.release()
}

// processesWith lists the processes whose command line mentions s.
func processesWith(t *testing.T, s string) []string {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, path := range dirs {
		b, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(b), s) {
			found = append(found, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return found
}

// Ctrl-C while the product is still starting stops what had started and
// is not an error.
func TestRunStopsWhileStarting(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stdout, stderr syncbuf.Buffer
	data := filepath.Join(t.TempDir(), "data")
	done := make(chan error, 1)
	go func() { done <- run(runCtx, append([]string{"-data", data}, anyPort...), os.Getenv, &stdout, &stderr) }()
	waitFor(ctx, t, "DynamoDB Local starting", func() bool { return len(processesWith(t, data)) > 0 })
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run = %v after Ctrl-C during the start", err)
		}
	case <-ctx.Done():
		t.Fatal("run did not return after Ctrl-C during the start")
	}
	if left := processesWith(t, data); len(left) > 0 {
		t.Errorf("processes of this run are left: %v", left)
	}
	if out := stdout.String(); !strings.HasSuffix(out, "Stopped before it was ready.\n") && !strings.HasSuffix(out, "Stopped.\n") {
		t.Errorf("run did not say it stopped:\n%s", out)
	}
}
