package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/internal/syncbuf"
)

// botProcess is the real binary running against a stack.
type botProcess struct {
	cmd    *exec.Cmd
	stderr *syncbuf.Buffer
	exited chan error
}

func startBinary(t *testing.T, env []string) *botProcess {
	t.Helper()
	p := &botProcess{cmd: exec.Command(botBinary), stderr: &syncbuf.Buffer{}, exited: make(chan error, 1)}
	p.cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// poll calls cond every 20 ms until it returns true, or fails the test
// after 30 s.
func poll(t *testing.T, p *botProcess, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; logs:\n%s", what, p.stderr)
		}
		time.Sleep(20 * time.Millisecond) // polling an outside process: no channel to wait on
	}
}

// httpAddr is the address the binary logged it serves on.
func (p *botProcess) httpAddr(t *testing.T) string {
	t.Helper()
	var addr string
	poll(t, p, "the http server", func() bool {
		for _, line := range strings.Split(p.stderr.String(), "\n") {
			var l struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "http server listening" {
				addr = l.Addr
				return true
			}
		}
		return false
	})
	return addr
}

func get(addr, path string) (int, string) {
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// healthcheckExit runs `approvals-bot -healthcheck` as a container health
// check would, with only APPROVALS_HTTP_ADDR set.
func healthcheckExit(t *testing.T, addr string) (int, string) {
	t.Helper()
	cmd := exec.Command(botBinary, "-healthcheck")
	cmd.Env = []string{"APPROVALS_HTTP_ADDR=" + addr}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	}
	t.Fatal(err)
	return -1, ""
}

// metric returns the value of one series in Prometheus text, or -1.
func metric(text, series string) float64 {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				return f
			}
		}
	}
	return -1
}

// The binary serves /healthz, /readyz and /metrics against the fake Slack
// and DynamoDB Local; -healthcheck agrees with /readyz; the counters move
// with a click, a reconnect and sweeps.
func TestBinaryServesHealthAndMetrics(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	stack, err := devstack.Start(ctx, devstack.Options{DynamoDBEndpoint: ddbEndpoint, Replicas: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer stack.Close()
	p := startBinary(t, append(stack.Env(), "APPROVALS_SWEEP_INTERVAL=1s"))
	addr := p.httpAddr(t)
	if code, body := get(addr, "/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz = %d %q", code, body)
	}
	poll(t, p, "/readyz ready", func() bool { code, _ := get(addr, "/readyz"); return code == 200 })
	if code, out := healthcheckExit(t, addr); code != 0 || strings.TrimSpace(out) != "ready" {
		t.Errorf("-healthcheck = exit %d %q, want 0 \"ready\"", code, out)
	}

	pending, err := stack.Request(ctx, "observe", map[string]any{"channel": "C0OBS", "approvers": []string{"U0ALICE"}, "title": "Ship it?"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stack.Slack.Click("U0ALICE", pending.Response.Channel, pending.Response.TS, "approve", pending.Response.ApprovalID); err != nil {
		t.Fatal(err)
	}
	if _, err := stack.WaitResumed(ctx, pending.Token); err != nil {
		t.Fatal(err)
	}
	stack.Slack.Disconnect("refresh_requested")

	want := map[string]float64{
		`approvals_envelopes_total{type="block_actions"}`:                             1,
		`approvals_decisions_total{outcome="approved"}`:                               1,
		`approvals_resume_results_total{code="ok"}`:                                   1,
		`approvals_time_to_decision_seconds_count`:                                    1,
		`approvals_ack_duration_seconds_count`:                                        1,
		`approvals_slack_api_calls_total{method="chat.update",status="ok"}`:           1,
		`approvals_slack_api_calls_total{method="apps.connections.open",status="ok"}`: 2,
		`approvals_socket_reconnects_total`:                                           1,
		`approvals_ready`:                                                             1,
		`approvals_slack_update_rate`:                                                 math.Inf(1), // no 429 yet: no limit learnt
	}
	var text string
	poll(t, p, "the counters", func() bool {
		_, text = get(addr, "/metrics")
		for series, v := range want {
			if metric(text, series) != v {
				return false
			}
		}
		return metric(text, `approvals_sweeps_total{result="ok"}`) >= 2
	})
	for _, series := range []string{"go_goroutines", "process_resident_memory_bytes", `approvals_open_approvals{age="under_1h"}`} {
		if metric(text, series) < 0 {
			t.Errorf("/metrics lacks %s", series)
		}
	}
	for _, secret := range []string{pending.Token, stack.Slack.BotToken(), stack.Slack.AppToken()} {
		if strings.Contains(text, secret) || strings.Contains(p.stderr.String(), secret) {
			t.Errorf("a secret (%.10s…) is in /metrics or the logs", secret)
		}
	}
}

// A bot that cannot reach DynamoDB is alive but not ready, and its
// container health check fails with the reason.
func TestBinaryNotReadyWithoutDynamoDB(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	stack, err := devstack.Start(ctx, devstack.Options{DynamoDBEndpoint: ddbEndpoint, Replicas: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer stack.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "http://" + ln.Addr().String()
	_ = ln.Close() // nothing listens there any more
	p := startBinary(t, append(stack.Env(), "AWS_ENDPOINT_URL_DYNAMODB="+unreachable))
	addr := p.httpAddr(t)
	if err := stack.Slack.WaitConnections(ctx, 1); err != nil {
		t.Fatalf("the bot never connected: %v\n%s", err, p.stderr)
	}
	poll(t, p, "the probe's verdict", func() bool {
		_, body := get(addr, "/readyz")
		return strings.Contains(body, "DynamoDB has not answered")
	})
	if code, _ := get(addr, "/healthz"); code != 200 {
		t.Errorf("/healthz = %d, want 200: the process is alive", code)
	}
	code, out := healthcheckExit(t, addr)
	if code != 1 || !strings.Contains(out, "approvals-bot: not ready: DynamoDB has not answered") || strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Errorf("-healthcheck = exit %d %q, want 1 and one line saying why", code, out)
	}
	if strings.Contains(out, ln.Addr().String()) {
		t.Errorf("the reason shows the endpoint: %q", out)
	}
}
