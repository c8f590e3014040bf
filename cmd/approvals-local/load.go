package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/internal/dynamolocal"
	"github.com/sfnapprovals/approvals/internal/metrics"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// loadReplicas bot processes run with their default configuration: the
// fake Slack limits chat.update workspace-wide, and each replica finds its
// pace from Slack's answers alone.
const loadReplicas = 2

// runLoad pauses n executions on approvals, then clicks every approval at
// once, spread by Slack over two bot processes, and reports ack latency,
// time to resume everything, message-update pacing against updateLimit
// (written as limitSpec) and the bots' memory.
func runLoad(ctx context.Context, n, ddbNice int, updateLimit fakeslack.RateLimit, limitSpec string, logs, out io.Writer) error {
	bin, err := buildBot(ctx)
	if err != nil {
		return err
	}
	defer os.RemoveAll(filepath.Dir(bin))

	// DynamoDB runs on other machines in production; at a lower CPU priority
	// here, DynamoDB Local does not take the two bots' CPU.
	ddb, err := dynamolocal.StartWith(ctx, dynamolocal.Options{Nice: ddbNice})
	if err != nil {
		return err
	}
	defer ddb.Close()
	stack, err := devstack.Start(ctx, devstack.Options{
		DynamoDBEndpoint: ddb.Endpoint(),
		Replicas:         -1,
		Logs:             logs,
		Slack: fakeslack.Options{
			RateLimits: map[string]fakeslack.RateLimit{"chat.update": updateLimit},
		},
	})
	if err != nil {
		return err
	}
	defer stack.Close()

	var bots []*exec.Cmd
	defer func() {
		for _, b := range bots {
			_ = b.Process.Kill()
			_ = b.Wait()
		}
	}()
	var ops []*opsAddr
	for range loadReplicas {
		cmd := exec.CommandContext(ctx, bin)
		// Only the stack's environment, as a task definition gives it: what
		// this machine exports (AWS_CA_BUNDLE, say, which makes the SDK parse
		// a CA bundle the loopback endpoints never use) is not the bot's.
		cmd.Env = stack.Env()
		addr := &opsAddr{logs: logs, found: make(chan string, 1)}
		cmd.Stdout, cmd.Stderr = logs, addr
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start bot: %w", err)
		}
		bots = append(bots, cmd)
		ops = append(ops, addr)
	}
	if err := stack.Slack.WaitConnections(ctx, loadReplicas); err != nil {
		return fmt.Errorf("bots did not connect: %w", err)
	}
	for _, o := range ops {
		if err := o.wait(ctx); err != nil {
			return err
		}
	}
	time.Sleep(time.Second) // let the bots finish their first sweep: "idle" memory
	idle := rssAll(bots)

	fmt.Fprintf(out, "Pausing %d executions on approvals…\n", n)
	start := time.Now()
	pending, err := requestAll(ctx, stack, "load", n)
	if err != nil {
		return err
	}
	requested := time.Since(start)

	cpuBefore := cpuAll(bots)
	callsBefore, err := dynamoCalls(ctx, ops)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Clicking all %d at once…\n", n)
	envelopes := make([]string, n)
	start = time.Now()
	var wg sync.WaitGroup
	var clickErr error
	var mu sync.Mutex
	for i, p := range pending {
		wg.Go(func() {
			id, err := stack.Slack.Click("U0ALICE", p.Response.Channel, p.Response.TS, "approve", p.Response.ApprovalID)
			mu.Lock()
			defer mu.Unlock()
			envelopes[i] = id
			if err != nil && clickErr == nil {
				clickErr = err
			}
		})
	}
	wg.Wait()
	sent := time.Since(start)
	if clickErr != nil {
		return fmt.Errorf("click: %w", clickErr)
	}
	waitCtx, cancelWait := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelWait()
	for _, p := range pending {
		if _, err := stack.WaitResumed(waitCtx, p.Token); err != nil {
			return fmt.Errorf("approval %s was not resumed within 2 minutes (%d of %d were): %w",
				p.Response.ApprovalID, stack.SFN.Successes(), n, err)
		}
	}
	resumed := time.Since(start)
	loaded := rssAll(bots)
	cpuUsed := cpuAll(bots)
	for i := range cpuUsed {
		cpuUsed[i] -= cpuBefore[i]
	}

	floor := updateLimit.Floor(n)
	updCtx, cancelUpd := context.WithTimeout(ctx, floor+5*time.Minute)
	defer cancelUpd()
	if err := stack.Slack.WaitFor(updCtx, func() bool {
		for _, p := range pending {
			m, _ := stack.Slack.Message(p.Response.Channel, p.Response.TS)
			if m.Updates == 0 {
				return false
			}
		}
		return true
	}); err != nil {
		return fmt.Errorf("messages not updated within the floor (%s) and 5 minutes: %w", floor, err)
	}
	updated := time.Since(start)
	callsAfter, err := dynamoCalls(ctx, ops)
	if err != nil {
		return err
	}
	updateCalls, limited := stack.Slack.Calls("chat.update"), stack.Slack.Limited("chat.update")
	firstUpdate := stack.Slack.FirstCall("chat.update").Sub(start)

	var latencies []time.Duration
	for _, id := range envelopes {
		ack, err := stack.Slack.WaitAck(ctx, id)
		if err != nil {
			return fmt.Errorf("ack: %w", err)
		}
		latencies = append(latencies, ack.Latency)
	}
	slices.Sort(latencies)

	burstResumes := stack.SFN.Successes()
	steadyN := steadyClicks(n)
	fmt.Fprintf(out, "Then %d more, clicked one at a time at %d a second…\n", steadyN, steadyRate)
	steady, err := clickSteadily(ctx, stack, steadyN)
	if err != nil {
		return err
	}

	stopStart := time.Now()
	for _, b := range bots {
		_ = b.Process.Signal(syscall.SIGTERM)
	}
	for _, b := range bots {
		_ = b.Wait()
	}
	stopped := time.Since(stopStart)
	bots = nil

	fmt.Fprintf(out, `
Load: %d approvals, %d concurrent clicks, %d bot processes, fake Slack + DynamoDB Local (nice %d) on loopback
  requests stored and posted      %s (notifier, 8 at a time)
  clicks sent by the fake Slack    %s
  ack latency                     p50 %s  p99 %s  max %s
  all executions resumed          %s after the first click
  resumes                         %d (want %d); clicks Slack saw as failed: %d
  all messages updated            %s after the first click; Slack limits chat.update to %s
  chat.update                     %d calls for %d messages, %d answered 429
  floor                           %s after the first update (which came %s after the first click)
  bot CPU until all resumed       %s
  DynamoDB calls per decision     %s (both bots, from the first click until all messages were updated)
  bot RSS idle                    %s
  bot RSS after the burst         %s
  SIGTERM to both bots exited     %s
At a steady pace: %d clicks, one every %s, each on its own approval
  ack latency                     p50 %s  p99 %s  max %s
  click to execution resumed      p50 %s  p99 %s  max %s
`, n, n, loadReplicas, ddbNice, requested.Round(time.Millisecond), sent.Round(time.Millisecond),
		pct(latencies, 50), pct(latencies, 99), latencies[len(latencies)-1].Round(100*time.Microsecond),
		resumed.Round(time.Millisecond), burstResumes, n, len(stack.Slack.Failures()),
		updated.Round(time.Millisecond), limitSpec, updateCalls, n, limited,
		floor.Round(time.Millisecond), firstUpdate.Round(time.Millisecond),
		cpuText(cpuUsed), perDecision(callsBefore, callsAfter, n), mib(idle), mib(loaded), stopped.Round(time.Millisecond),
		steadyN, time.Second/steadyRate, pct(steady.acks, 50), pct(steady.acks, 99), pct(steady.acks, 100),
		pct(steady.resumes, 50), pct(steady.resumes, 99), pct(steady.resumes, 100))
	if got := stack.SFN.Successes(); got != n+steadyN {
		return fmt.Errorf("%d resumes, want exactly %d", got, n+steadyN)
	}
	return nil
}

// requestAll pauses n executions (named prefix-0, prefix-1, …) on
// approvals for U0ALICE in C0LOAD, through the notifier, 8 at a time.
func requestAll(ctx context.Context, stack *devstack.Stack, prefix string, n int) ([]devstack.Pending, error) {
	pending := make([]devstack.Pending, n)
	sem := make(chan struct{}, 8)
	errs := make(chan error, n)
	var reqs sync.WaitGroup
	for i := range pending {
		sem <- struct{}{}
		reqs.Go(func() {
			defer func() { <-sem }()
			var err error
			pending[i], err = stack.Request(ctx, fmt.Sprintf("%s-%d", prefix, i), map[string]any{
				"channel": "C0LOAD", "approvers": []string{"U0ALICE"}, "title": fmt.Sprintf("Load item %s %d", prefix, i),
			})
			errs <- err
		})
	}
	reqs.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return nil, fmt.Errorf("request: %w", err)
		}
	}
	return pending, nil
}

// The steady phase: after the burst, half as many approvals again (at
// most maxSteadyClicks) are clicked steadyRate a second, so each click
// meets no queue of other decisions (the bots are still posting the
// burst's thread replies, about one a second). The ack of a decision
// waits for its claim: this is that wait alone.
const (
	maxSteadyClicks = 200
	steadyRate      = 20
)

func steadyClicks(n int) int { return max(1, min(maxSteadyClicks, n/2)) }

type steadyResult struct {
	acks, resumes []time.Duration // sorted
}

// clickSteadily requests n approvals, then clicks them one at a time at
// steadyRate a second, and returns each click's ack latency and the time
// from sending it to its execution's resume.
func clickSteadily(ctx context.Context, stack *devstack.Stack, n int) (steadyResult, error) {
	pending, err := requestAll(ctx, stack, "steady", n)
	if err != nil {
		return steadyResult{}, err
	}
	var res steadyResult
	envelopes := make([]string, len(pending))
	resumes := make([]time.Duration, len(pending))
	errs := make(chan error, len(pending))
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / steadyRate)
	defer tick.Stop()
	var clickErr error
	for i, p := range pending {
		<-tick.C
		sent := time.Now()
		id, err := stack.Slack.Click("U0ALICE", p.Response.Channel, p.Response.TS, "approve", p.Response.ApprovalID)
		if err != nil {
			clickErr = fmt.Errorf("click: %w", err)
			break
		}
		envelopes[i] = id
		wg.Go(func() {
			waitCtx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			if _, err := stack.WaitResumed(waitCtx, p.Token); err != nil {
				errs <- fmt.Errorf("approval %s was not resumed within a minute: %w", p.Response.ApprovalID, err)
				return
			}
			resumes[i] = time.Since(sent)
		})
	}
	wg.Wait()
	close(errs)
	if clickErr != nil {
		return res, clickErr
	}
	if err := <-errs; err != nil {
		return res, err
	}
	for _, id := range envelopes {
		ack, err := stack.Slack.WaitAck(ctx, id)
		if err != nil {
			return res, fmt.Errorf("ack: %w", err)
		}
		res.acks = append(res.acks, ack.Latency)
	}
	slices.Sort(res.acks)
	slices.Sort(resumes)
	res.resumes = resumes
	return res, nil
}

func pct(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p+99)/100 - 1
	return sorted[max(i, 0)].Round(100 * time.Microsecond)
}

// buildBot compiles cmd/approvals-bot into a temporary folder the way
// deploy/Dockerfile builds the image (static, no cgo, stripped), so the
// memory measured is that of the binary teams run.
func buildBot(ctx context.Context) (string, error) {
	dir, err := os.MkdirTemp("", "approvals-load-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "approvals-bot")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "github.com/sfnapprovals/approvals/cmd/approvals-bot")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("build approvals-bot (run inside the repository): %v\n%s", err, b)
	}
	return bin, nil
}

// rssAll reads each process's resident set size in KiB.
func rssAll(cmds []*exec.Cmd) []int {
	var out []int
	for _, c := range cmds {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.Process.Pid))
		if err != nil {
			out = append(out, -1)
			continue
		}
		kib := -1
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
				kib, _ = strconv.Atoi(f[1])
			}
		}
		out = append(out, kib)
	}
	return out
}

// cpuAll reads each process's user+system CPU time (0 where unreadable).
func cpuAll(cmds []*exec.Cmd) []time.Duration {
	var out []time.Duration
	for _, c := range cmds {
		d, _ := metrics.ProcessCPU(c.Process.Pid)
		out = append(out, d)
	}
	return out
}

func cpuText(ds []time.Duration) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, d.String())
	}
	return strings.Join(parts, ", ")
}

func mib(kibs []int) string {
	var parts []string
	for _, k := range kibs {
		parts = append(parts, fmt.Sprintf("%.1f MiB", float64(k)/1024))
	}
	return strings.Join(parts, ", ")
}

// opsAddr passes a bot's log on to logs and picks out the address its
// operations server listens on (APPROVALS_HTTP_ADDR is any free port).
type opsAddr struct {
	logs    io.Writer
	found   chan string
	partial []byte
	addr    string
}

func (o *opsAddr) Write(p []byte) (int, error) {
	if o.addr == "" {
		o.partial = append(o.partial, p...)
		for {
			line, rest, ok := bytes.Cut(o.partial, []byte("\n"))
			if !ok {
				break
			}
			o.partial = rest
			var entry struct{ Msg, Addr string }
			if json.Unmarshal(line, &entry) == nil && entry.Msg == "http server listening" && entry.Addr != "" {
				o.addr, o.partial = entry.Addr, nil
				o.found <- entry.Addr
				break
			}
		}
	}
	return o.logs.Write(p)
}

func (o *opsAddr) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return fmt.Errorf("a bot did not say where its operations server listens: %w", ctx.Err())
	case addr := <-o.found:
		o.found <- addr
		return nil
	}
}

// dynamoCalls sums the bots' DynamoDB calls so far, by operation, from
// their approvals_dynamodb_calls_total.
func dynamoCalls(ctx context.Context, ops []*opsAddr) (map[string]float64, error) {
	sum := map[string]float64{}
	for _, o := range ops {
		addr := <-o.found
		o.found <- addr
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, fmt.Errorf("read a bot's metrics: %w", err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read a bot's metrics: %w", err)
		}
		for _, line := range strings.Split(string(body), "\n") {
			series, value, ok := strings.Cut(line, " ")
			op, found := strings.CutPrefix(series, `approvals_dynamodb_calls_total{operation="`)
			if !ok || !found {
				continue
			}
			n, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return nil, fmt.Errorf("read a bot's metrics: %q: %w", line, err)
			}
			sum[strings.TrimSuffix(op, `"}`)] += n
		}
	}
	return sum, nil
}

// perDecision is the calls made between two dynamoCalls, by operation,
// divided by the n decisions.
func perDecision(before, after map[string]float64, n int) string {
	var parts []string
	total := 0.0
	for _, op := range slices.Sorted(maps.Keys(after)) {
		if d := after[op] - before[op]; d > 0 {
			parts = append(parts, fmt.Sprintf("%s %.2f", op, d/float64(n)))
			total += d
		}
	}
	return fmt.Sprintf("%.2f: %s", total/float64(n), strings.Join(parts, ", "))
}
