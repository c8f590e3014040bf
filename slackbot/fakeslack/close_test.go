package fakeslack_test

import (
	"context"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// TestCloseLeavesNoGoroutines closes the fake under a connected client with envelopes pending,
// then checks that the goroutine count returns to where it started.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()

	s, err := fakeslack.Start(fakeslack.Options{PingInterval: 20 * time.Millisecond, AckTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	api := slack.New(s.BotToken(), slack.OptionAppLevelToken(s.AppToken()), slack.OptionAPIURL(s.APIURL()),
		slack.OptionHTTPClient(&http.Client{Transport: tr, Timeout: 10 * time.Second}))
	cli := socketmode.New(api)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = cli.RunContext(ctx)
	}()
	go func() {
		for {
			select {
			case <-cli.Events:
			case <-stopped:
				return
			}
		}
	}()
	if err := s.WaitConnections(waitCtx(t), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SendEvent("app_mention", map[string]any{"user": "U1", "text": "hi", "channel": "C1", "ts": "1.1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Slash("U1", "C1", "/approvals", ""); err != nil {
		t.Fatal(err)
	}

	s.Close()
	s.Close() // idempotent
	if err := s.WaitFor(context.Background(), func() bool { return false }); err != fakeslack.ErrClosed {
		t.Errorf("WaitFor after Close = %v, want ErrClosed", err)
	}
	cancel()
	<-stopped
	tr.CloseIdleConnections()

	deadline := time.Now().Add(waitTimeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		<-tick.C
	}
}
