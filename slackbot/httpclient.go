package slackbot

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// NewHTTPClient returns the HTTP client to build the *slack.Client with.
// Every request gets timeout. Calls of apps.connections.open are spaced:
// when the previous open was recent, the next one waits 1 s, then 2 s, 4 s …
// up to 30 s, so a server that keeps dropping new connections cannot cause
// a storm of opens; the delay resets once a connection has lived a minute.
func NewHTTPClient(timeout time.Duration) *http.Client {
	return newHTTPClient(timeout, openBackoff{Base: time.Second, Max: 30 * time.Second, Reset: time.Minute})
}

func newHTTPClient(timeout time.Duration, b openBackoff) *http.Client {
	return &http.Client{Transport: &transport{
		next:    http.DefaultTransport,
		timeout: timeout,
		opens:   &openLimiter{openBackoff: b, now: time.Now},
	}}
}

// transport applies the per-request timeout after any wait for an open
// slot, so the wait does not eat into the request's own time.
type transport struct {
	next    http.RoundTripper
	timeout time.Duration
	opens   *openLimiter
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.HasSuffix(req.URL.Path, "/apps.connections.open") {
		if err := t.opens.wait(req.Context()); err != nil {
			if req.Body != nil {
				_ = req.Body.Close()
			}
			return nil, err
		}
	}
	if t.timeout <= 0 {
		return t.next.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

type openBackoff struct {
	Base  time.Duration // first delay after a recent open
	Max   time.Duration // delay cap
	Reset time.Duration // an open this long after the previous one waits nothing
}

// openLimiter spaces connection opens with a growing delay.
type openLimiter struct {
	openBackoff
	now func() time.Time

	mu    sync.Mutex
	last  time.Time // time of the previous open
	delay time.Duration
}

func (l *openLimiter) wait(ctx context.Context) error {
	d := l.reserve()
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// reserve books the next open and says how long to wait for it.
func (l *openLimiter) reserve() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	switch {
	case l.last.IsZero() || now.Sub(l.last) >= l.Reset:
		l.delay = 0
	case l.delay == 0:
		l.delay = l.Base
	default:
		l.delay = min(2*l.delay, l.Max)
	}
	at := now
	if next := l.last.Add(l.delay); next.After(now) {
		at = next
	}
	l.last = at
	return at.Sub(now)
}
