package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// startError is what stops approvals-local before it starts anything: one
// line per problem, each saying what to do.
type startError []string

func (e startError) Error() string {
	return "cannot start:\n  - " + strings.Join(e, "\n  - ")
}

// listeners are the product's fixed addresses, bound before anything
// starts, so a taken port is found at once and no other program can take
// one meanwhile.
type listeners struct {
	page, slack, bot, sfn, s3 net.Listener
}

func (l *listeners) close() {
	for _, ln := range []net.Listener{l.page, l.slack, l.bot, l.sfn, l.s3} {
		if ln != nil {
			_ = ln.Close()
		}
	}
}

// listen binds every address the configuration needs (the page and the
// fake Slack only for the stand-in) and returns one line per address it
// could not bind.
func listen(c productConfig) (*listeners, []string) {
	l := &listeners{}
	var problems []string
	bind := func(dst *net.Listener, addr, flag, what string) {
		ln, err := net.Listen("tcp", addr)
		switch {
		case errors.Is(err, syscall.EADDRINUSE):
			problems = append(problems, fmt.Sprintf("%s (%s, %s) is in use by another program: stop it, or pass %s with another port", addr, flag, what, flag))
		case err != nil:
			problems = append(problems, fmt.Sprintf("cannot listen on %s (%s, %s): %v", addr, flag, what, unwrapOp(err)))
		default:
			*dst = ln
		}
	}
	if c.Slack == nil {
		bind(&l.page, c.Addr, "-addr", "the Slack stand-in's web page")
		bind(&l.slack, c.SlackAddr, "-slack-addr", "the fake Slack")
	}
	bind(&l.bot, c.BotAddr, "-bot-addr", "the bot's health and metrics")
	bind(&l.sfn, c.SFNAddr, "-sfn-addr", "the Step Functions API")
	bind(&l.s3, c.S3Addr, "-s3-addr", "the local S3")
	return l, problems
}

// unwrapOp drops the "listen tcp addr:" prefix the address already says.
func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

// dataLock holds the data folder for one approvals-local at a time: two
// would share DynamoDB Local's files and the stand-in's messages.
type dataLock struct{ f *os.File }

// lockData creates the data folder if needed and takes its lock.
func lockData(dir string) (*dataLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the data folder: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock the data folder: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("another approvals-local uses the data folder %s: stop it, or pass -data with another folder", dir)
		}
		return nil, fmt.Errorf("lock the data folder %s: %w", dir, err)
	}
	return &dataLock{f: f}, nil
}

func (l *dataLock) release() {
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	_ = l.f.Close()
}
