package fakeslack_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// waitTimeout bounds every wait in these tests; nothing sleeps.
const waitTimeout = 10 * time.Second

func newServer(t *testing.T, opts fakeslack.Options) *fakeslack.Server {
	t.Helper()
	s, err := fakeslack.Start(opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// newAPI is the real slack-go client pointed at the fake, with its own transport so its idle
// connections are closed at cleanup.
func newAPI(t *testing.T, s *fakeslack.Server, token string) *slack.Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return slack.New(token,
		slack.OptionAppLevelToken(s.AppToken()),
		slack.OptionAPIURL(s.APIURL()),
		slack.OptionHTTPClient(&http.Client{Timeout: 10 * time.Second, Transport: tr}),
	)
}

// bot is a running socketmode client whose request events are forwarded to events. It never acks
// on its own.
type bot struct {
	hello  socketmode.Event
	cli    *socketmode.Client
	events chan socketmode.Event
	stop   func()
}

func startBot(t *testing.T, s *fakeslack.Server, opts ...socketmode.Option) *bot {
	t.Helper()
	cli := socketmode.New(newAPI(t, s, s.BotToken()), opts...)
	b := &bot{cli: cli, events: make(chan socketmode.Event, 64)}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	drained := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = cli.RunContext(ctx)
	}()
	go func() {
		defer close(drained)
		for {
			select {
			case e := <-cli.Events:
				if e.Request == nil {
					continue
				}
				select {
				case b.events <- e:
				default:
					t.Errorf("test bot dropped a %s event", e.Type)
				}
			case <-stopped:
				return
			}
		}
	}()
	var once sync.Once
	b.stop = func() {
		once.Do(func() {
			cancel()
			<-stopped
			<-drained
		})
	}
	t.Cleanup(b.stop)
	b.hello = b.next(t, socketmode.EventTypeHello)
	return b
}

// next returns the next request event of type typ, skipping others.
func (b *bot) next(t *testing.T, typ socketmode.EventType) socketmode.Event {
	t.Helper()
	timeout := time.NewTimer(waitTimeout)
	defer timeout.Stop()
	for {
		select {
		case e := <-b.events:
			if e.Type == typ {
				return e
			}
		case <-timeout.C:
			t.Fatalf("no %s event within %v", typ, waitTimeout)
			return socketmode.Event{}
		}
	}
}

func (b *bot) ack(t *testing.T, req *socketmode.Request, payload any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := b.cli.AckCtx(ctx, req.EnvelopeID, payload); err != nil {
		t.Fatalf("ack %s: %v", req.EnvelopeID, err)
	}
}

// clock is an adjustable clock for Options.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Unix(1700000000, 0)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
