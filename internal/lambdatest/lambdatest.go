// Package lambdatest is what the tests of each Lambda binary share: the
// binary, built once as the provided.al2023 runtime runs it, one DynamoDB
// Local, and the binary's processes. Each test then serves a process a
// Runtime API emulator of its own (internal/lambdaruntime) and makes a
// table of its own.
package lambdatest

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/sfnapprovals/approvals/internal/dynamolocal"
	"github.com/sfnapprovals/approvals/internal/metrics"
	"github.com/sfnapprovals/approvals/internal/syncbuf"
)

// Harness is filled in by Main for the tests it runs.
type Harness struct {
	// Binary is the function's bootstrap, built from the package in the
	// working directory with -tags lambda.norpc -trimpath, CGO off.
	Binary string
	DDB    *dynamolocal.Server
	// Admin is a DynamoDB client of DDB, for tables and seeding.
	Admin *dynamodb.Client
}

// Main builds the function, starts DynamoDB Local, runs m and stops it; it
// returns m's exit code, or 1 (saying why on stderr) when either fails.
// Use it as TestMain's os.Exit(lambdatest.Main(m, "notifier", &h)).
func Main(m *testing.M, name string, h *Harness) int {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", name+"-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	h.Binary = filepath.Join(dir, "bootstrap")
	build := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-o", h.Binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build %s: %v\n%s", name, err, out)
		return 1
	}
	if h.DDB, err = dynamolocal.Start(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "start DynamoDB Local (run make tools): %v\n", err)
		return 1
	}
	defer h.DDB.Close()
	if h.Admin, err = dynamolocal.Client(ctx, h.DDB.Endpoint()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// Process is a running function binary.
type Process struct {
	cmd    *exec.Cmd
	out    *syncbuf.Buffer // stdout and stderr
	stdout *syncbuf.Buffer
	exited chan struct{}
}

// Start runs the binary with exactly env (nothing of the test's own
// environment) and kills it when the test ends.
func (h *Harness) Start(tb testing.TB, env map[string]string) *Process {
	tb.Helper()
	p := &Process{cmd: exec.Command(h.Binary), out: &syncbuf.Buffer{}, stdout: &syncbuf.Buffer{}, exited: make(chan struct{})}
	for k, v := range env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = io.MultiWriter(p.out, p.stdout), p.out
	if err := p.cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", h.Binary, err)
	}
	go func() {
		_ = p.cmd.Wait() // its exit code is Wait's
		close(p.exited)
	}()
	tb.Cleanup(p.Stop)
	return p
}

// Stop kills the process and waits for it.
func (p *Process) Stop() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// Wait waits at most 30 s for the process to exit by itself and returns
// its exit code.
func (p *Process) Wait(tb testing.TB) int {
	tb.Helper()
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		tb.Fatalf("the function did not exit; output:\n%s", p.Output())
	}
	return p.cmd.ProcessState.ExitCode()
}

// Context returns a context that ends after d or when the process exits.
func (p *Process) Context(d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	go func() {
		select {
		case <-p.exited:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// CPU is the user and system CPU time the process has spent so far (Linux
// only; in 10 ms ticks).
func (p *Process) CPU() (time.Duration, error) { return metrics.ProcessCPU(p.cmd.Process.Pid) }

// Output is all the process wrote, stdout and stderr interleaved.
func (p *Process) Output() string { return p.out.String() }

// Stdout is what the process wrote to stdout.
func (p *Process) Stdout() string { return p.stdout.String() }
