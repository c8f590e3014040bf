package localui_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/sfnapprovals/approvals/internal/localui"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// waitTimeout bounds every wait of these tests; nothing sleeps.
const waitTimeout = 30 * time.Second

// ui is the page on a test server in front of a fake Slack.
type ui struct {
	h     *localui.Handler
	url   string
	slack *fakeslack.Server
	api   *slack.Client
}

func newUI(t *testing.T, slackOpts fakeslack.Options, opts localui.Options) *ui {
	t.Helper()
	s, err := fakeslack.Start(slackOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	opts.Slack = s
	h := localui.New(opts)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	api := slack.New(s.BotToken(), slack.OptionAppLevelToken(s.AppToken()), slack.OptionAPIURL(s.APIURL()),
		slack.OptionHTTPClient(&http.Client{Timeout: 10 * time.Second, Transport: tr}))
	return &ui{h: h, url: srv.URL, slack: s, api: api}
}

// noAck makes the app leave an envelope unacknowledged.
var noAck = &struct{}{}

// app is a Socket Mode app on the real slack-go client: it acks every request with what answer
// returns, and keeps the requests it got.
type app struct {
	mu  sync.Mutex
	got []socketmode.Event
}

func startApp(t *testing.T, u *ui, answer func(socketmode.Event) any) *app {
	t.Helper()
	cli := socketmode.New(u.api)
	a := &app{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = cli.RunContext(ctx) }()
	go func() {
		defer wg.Done()
		for {
			select {
			case e := <-cli.Events:
				switch e.Type {
				case socketmode.EventTypeInteractive, socketmode.EventTypeSlashCommand, socketmode.EventTypeEventsAPI:
				default:
					continue
				}
				payload := answer(e)
				if payload != noAck {
					actx, acancel := context.WithTimeout(ctx, 5*time.Second)
					_ = cli.AckCtx(actx, e.Request.EnvelopeID, payload)
					acancel()
				}
				a.mu.Lock()
				a.got = append(a.got, e)
				a.mu.Unlock()
			case <-ctx.Done():
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	wctx, wcancel := context.WithTimeout(context.Background(), waitTimeout)
	defer wcancel()
	if err := u.slack.WaitConnections(wctx, 1); err != nil {
		t.Fatalf("the app did not connect: %v", err)
	}
	return a
}

func (a *app) requests() []socketmode.Event {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]socketmode.Event(nil), a.got...)
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}
