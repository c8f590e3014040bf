package soak

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// replica is one approvals-bot process: slot is its place in the fleet,
// gen how many processes had that place before it.
type replica struct {
	slot, gen int
	survivor  bool
	cmd       *exec.Cmd
	pid       int
	log       string
	started   time.Time

	addrOnce sync.Once
	addrC    chan string
	done     chan struct{}

	mu        sync.Mutex
	addr      string
	races     int
	stopping  string    // "SIGKILL" or "SIGTERM" when the fleet stopped it
	signalled time.Time // when it was
	exited    time.Time
	exitErr   error
}

func (r *replica) String() string {
	return fmt.Sprintf("replica %d.%d (pid %d)", r.slot, r.gen, r.pid)
}

// httpAddr waits until the replica logged where its /metrics is.
func (r *replica) httpAddr(ctx context.Context) (string, error) {
	select {
	case a := <-r.addrC:
		r.addrC <- a
		return a, nil
	case <-r.done:
		return "", fmt.Errorf("%s exited before serving /metrics", r)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (r *replica) alive() bool {
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

// fleet runs the bot replicas as processes, replaces them, and keeps
// what happened to each.
type fleet struct {
	bin    string
	env    []string
	logDir string

	mu    sync.Mutex
	slots []*replica // the current process of each slot; nil while down
	all   []*replica
	gens  []int
}

func newFleet(bin string, env []string, logDir string, n int) *fleet {
	return &fleet{bin: bin, env: env, logDir: logDir, slots: make([]*replica, n), gens: make([]int, n)}
}

// start starts the next process of slot.
func (f *fleet) start(slot int, survivor bool) (*replica, error) {
	f.mu.Lock()
	gen := f.gens[slot]
	f.gens[slot]++
	f.mu.Unlock()
	r := &replica{slot: slot, gen: gen, survivor: survivor, addrC: make(chan string, 1), done: make(chan struct{})}
	r.log = filepath.Join(f.logDir, fmt.Sprintf("bot-%d.%d.log", slot, gen))
	file, err := os.Create(r.log)
	if err != nil {
		return nil, err
	}
	r.cmd = exec.Command(f.bin)
	r.cmd.Env = f.env
	r.cmd.SysProcAttr = procAttr()
	w := &lineWriter{out: file, line: r.scan}
	r.cmd.Stdout, r.cmd.Stderr = w, w
	if err := r.cmd.Start(); err != nil {
		file.Close()
		return nil, fmt.Errorf("start %s: %w", f.bin, err)
	}
	r.pid, r.started = r.cmd.Process.Pid, time.Now()
	go func() {
		err := r.cmd.Wait()
		w.flush()
		file.Close()
		r.mu.Lock()
		r.exited, r.exitErr = time.Now(), err
		r.mu.Unlock()
		close(r.done)
	}()
	f.mu.Lock()
	f.slots[slot] = r
	f.all = append(f.all, r)
	f.mu.Unlock()
	return r, nil
}

// scan reads one line of the replica's output: where it serves, and the
// race detector's reports.
func (r *replica) scan(line []byte) {
	if bytes.Contains(line, []byte("WARNING: DATA RACE")) {
		r.mu.Lock()
		r.races++
		r.mu.Unlock()
	}
	if !bytes.Contains(line, []byte(`"http server listening"`)) {
		return
	}
	var l struct{ Addr string }
	if json.Unmarshal(line, &l) == nil && l.Addr != "" {
		r.addrOnce.Do(func() {
			r.mu.Lock()
			r.addr = l.Addr
			r.mu.Unlock()
			r.addrC <- l.Addr
		})
	}
}

// stop stops the replica with sig and waits until it exited (up to
// timeout, then SIGKILL).
func (f *fleet) stop(r *replica, sig syscall.Signal, timeout time.Duration) {
	name := "SIGKILL"
	if sig == syscall.SIGTERM {
		name = "SIGTERM"
	}
	r.mu.Lock()
	if r.stopping == "" {
		r.stopping, r.signalled = name, time.Now()
	}
	r.mu.Unlock()
	f.mu.Lock()
	if f.slots[r.slot] == r {
		f.slots[r.slot] = nil
	}
	f.mu.Unlock()
	_ = r.cmd.Process.Signal(sig)
	select {
	case <-r.done:
	case <-time.After(timeout):
		_ = r.cmd.Process.Kill()
		<-r.done
	}
}

// current returns the live process of each slot (nil while down).
func (f *fleet) current() []*replica {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*replica(nil), f.slots...)
}

// every returns every process started, in order.
func (f *fleet) every() []*replica {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*replica(nil), f.all...)
}

// close stops every live replica with SIGTERM, as a scale-down does.
func (f *fleet) close(timeout time.Duration) {
	var wg sync.WaitGroup
	for _, r := range f.every() {
		if r.alive() {
			wg.Go(func() { f.stop(r, syscall.SIGTERM, timeout) })
		}
	}
	wg.Wait()
}

// crashed lists the replicas that exited without being stopped.
func (f *fleet) crashed() []*replica {
	var out []*replica
	for _, r := range f.every() {
		r.mu.Lock()
		if !r.alive() && r.stopping == "" {
			out = append(out, r)
		}
		r.mu.Unlock()
	}
	return out
}

// lineWriter writes a process's output to out and hands each complete
// line to line.
type lineWriter struct {
	mu   sync.Mutex
	out  io.Writer
	buf  []byte
	line func([]byte)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.line(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	return w.out.Write(p)
}

func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.line(w.buf)
		w.buf = nil
	}
}

// usage is what a replica's /metrics says of its goroutines and open
// files.
type usage struct {
	goroutines, fds int
}

// measure reads the replica's /metrics.
func measure(ctx context.Context, r *replica) (usage, error) {
	addr, err := r.httpAddr(ctx)
	if err != nil {
		return usage{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return usage{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return usage{}, fmt.Errorf("%s /metrics: %w", r, err)
	}
	defer resp.Body.Close()
	var u usage
	found := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		switch {
		case err != nil:
		case name == "go_goroutines":
			u.goroutines, found = int(v), found+1
		case name == "process_open_fds":
			u.fds, found = int(v), found+1
		}
	}
	if found != 2 {
		return u, fmt.Errorf("%s /metrics has no go_goroutines or process_open_fds", r)
	}
	return u, sc.Err()
}

// settledUsage is the least of a few readings of the replica's /metrics a
// second apart: what it holds when idle, without a passing request.
func settledUsage(ctx context.Context, r *replica) (usage, error) {
	var least usage
	for i := range 5 {
		u, err := measure(ctx, r)
		if err != nil {
			return u, err
		}
		if i == 0 || u.goroutines < least.goroutines {
			least.goroutines = u.goroutines
		}
		if i == 0 || u.fds < least.fds {
			least.fds = u.fds
		}
		select {
		case <-ctx.Done():
			return least, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return least, nil
}

// buildBot compiles cmd/approvals-bot, with the race detector when race,
// into dir.
func buildBot(ctx context.Context, dir string, race bool) (string, error) {
	bin := filepath.Join(dir, "approvals-bot")
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	args = append(args, "github.com/sfnapprovals/approvals/cmd/approvals-bot")
	cmd := exec.CommandContext(ctx, "go", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build approvals-bot (run inside the repository): %v\n%s", err, out)
	}
	return bin, nil
}
