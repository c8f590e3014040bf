package ecs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"

	"go.uber.org/zap"
)

// Container is what a stand-in container runs with: its command and
// environment after the state's ContainerOverrides.
type Container struct {
	TaskARN string
	Name    string
	Command []string
	// Environment holds the definition's variables with the overrides'
	// added or replaced.
	Environment map[string]string
	// Stdout receives what the container prints (logged by the
	// integration, line by line, as CloudWatch Logs would keep it).
	Stdout io.Writer
}

// Runner runs a stand-in container until it exits, or until ctx ends (the
// task is stopped), and returns its exit code. An error means the
// container could not start (the task stops with TaskFailedToStart); a
// panic is a crash with exit code 2.
type Runner func(ctx context.Context, c Container) (exitCode int, err error)

// CommandRunner runs the container as a process on this machine: the
// entrypoint followed by the container's command, with this process's
// environment plus the container's. A program that cannot be started
// (not found, not executable) is a container that cannot start; a process
// killed because the task was stopped exits with 137, as a container
// killed with SIGKILL does.
func CommandRunner(entrypoint ...string) Runner {
	return func(ctx context.Context, c Container) (int, error) {
		argv := append(append([]string(nil), entrypoint...), c.Command...)
		if len(argv) == 0 {
			return 0, errors.New("CannotStartContainerError: the container has no command or entrypoint to run")
		}
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = os.Environ()
		keys := make([]string, 0, len(c.Environment))
		for k := range c.Environment {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			cmd.Env = append(cmd.Env, k+"="+c.Environment[k])
		}
		cmd.Stdout, cmd.Stderr = c.Stdout, c.Stdout
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case err == nil:
			return 0, nil
		case errors.As(err, &exit):
			if ctx.Err() != nil || exit.ExitCode() < 0 {
				return 137, nil
			}
			return exit.ExitCode(), nil
		}
		return 0, fmt.Errorf("CannotStartContainerError: %v", err)
	}
}

// lineLogger logs what a container prints, a line at a time.
type lineLogger struct {
	log *zap.Logger
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lineLogger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for {
		line, err := l.buf.ReadString('\n')
		if err != nil {
			l.buf.Reset()
			l.buf.WriteString(line)
			return len(p), nil
		}
		l.log.Info("ECS stand-in output", zap.String("line", strings.TrimRight(line, "\r\n")))
	}
}

func (l *lineLogger) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len() > 0 {
		l.log.Info("ECS stand-in output", zap.String("line", l.buf.String()))
		l.buf.Reset()
	}
}
