package fakeslack

import (
	"math"
	"time"
)

// RateLimit limits calls of a Web API method the way Slack describes its limits: per method and
// workspace, in windows of a minute, with a burst allowance.
//
//   - Limit calls per fixed window of length Per; a window starts at the first call after the
//     previous one ended.
//   - At most Burst calls at once; the allowance comes back evenly, Limit per Per. With Burst unset
//     or not below Limit, a window's calls may all come at once.
//   - With Limit unset, Burst is the window's allowance: Burst calls per Per, all at once allowed
//     (the fixed window of earlier versions of this fake).
//   - With PerChannel, each channel (the call's "channel" parameter) has its own allowance, as
//     Slack limits chat.postMessage to about one message a second per channel.
//
// A call over the limit is not performed; it gets HTTP 429 with Retry-After (whole seconds until a
// call would be allowed again, at least 1) and {"ok":false,"error":"ratelimited"}, which slack-go
// turns into *slack.RateLimitedError.
type RateLimit struct {
	Burst      int
	Per        time.Duration
	Limit      int
	PerChannel bool
}

// shape returns the window's allowance and the burst bucket's size (0: no bucket).
func (rl RateLimit) shape() (limit, burst int) {
	if rl.Limit <= 0 {
		return rl.Burst, 0
	}
	if rl.Burst <= 0 || rl.Burst >= rl.Limit {
		return rl.Limit, 0
	}
	return rl.Limit, rl.Burst
}

func (rl RateLimit) valid() bool {
	limit, _ := rl.shape()
	return limit > 0 && rl.Per > 0
}

// Floor is the least time from the first of n calls to the last, for a caller that sends each call
// the instant the limit allows it: what no pacing can beat.
func (rl RateLimit) Floor(n int) time.Duration {
	if !rl.valid() || n <= 1 {
		return 0
	}
	var st limitState
	t0 := time.Unix(0, 0)
	now := t0
	for sent := 0; ; {
		wait, ok := st.take(rl, now)
		if ok {
			if sent++; sent == n {
				return now.Sub(t0)
			}
			continue
		}
		now = now.Add(wait)
	}
}

// Allowance is the state of one RateLimit, for simulations on a virtual clock; the Server keeps one
// per method (and channel). It is not safe for concurrent use.
type Allowance struct {
	rl RateLimit
	st limitState
}

// Allowance returns a fresh allowance under rl.
func (rl RateLimit) Allowance() *Allowance { return &Allowance{rl: rl} }

// Take counts a call at now, or returns the Retry-After the Server would answer it with.
func (a *Allowance) Take(now time.Time) (retryAfter time.Duration, ok bool) {
	wait, ok := a.st.take(a.rl, now)
	if ok {
		return 0, true
	}
	return retryAfterSeconds(wait), false
}

func retryAfterSeconds(wait time.Duration) time.Duration {
	return time.Duration(max(1, math.Ceil(wait.Seconds()))) * time.Second
}

// limitState is one allowance: a window and a burst bucket.
type limitState struct {
	start  time.Time
	calls  int
	tokens float64
	last   time.Time
}

// take counts a call at now against the allowance, or says how long until one would be allowed.
func (st *limitState) take(rl RateLimit, now time.Time) (time.Duration, bool) {
	limit, burst := rl.shape()
	if st.start.IsZero() || now.Sub(st.start) >= rl.Per {
		st.start, st.calls = now, 0
	}
	if st.calls >= limit {
		return st.start.Add(rl.Per).Sub(now), false
	}
	if burst > 0 {
		rate := float64(limit) / rl.Per.Seconds()
		if st.last.IsZero() {
			st.tokens, st.last = float64(burst), now
		}
		st.tokens = min(float64(burst), st.tokens+now.Sub(st.last).Seconds()*rate)
		st.last = now
		if st.tokens < 1 {
			return time.Duration(math.Ceil((1 - st.tokens) / rate * float64(time.Second))), false
		}
		st.tokens--
	}
	st.calls++
	return 0, true
}

// rateLimitedLocked counts a call of method (in channel) against its limit and reports how long
// the caller must wait, in Retry-After's whole seconds, when it is over the limit.
func (s *Server) rateLimitedLocked(method, channel string, now time.Time) (retryAfter int, limited bool) {
	rl, ok := s.opts.RateLimits[method]
	if !ok || !rl.valid() {
		return 0, false
	}
	key := method
	if rl.PerChannel {
		key += " " + channel
	}
	st := s.api.limits[key]
	if st == nil {
		st = &limitState{}
		s.api.limits[key] = st
	}
	wait, ok := st.take(rl, now)
	if ok {
		return 0, false
	}
	s.api.limited[method]++
	return int(retryAfterSeconds(wait) / time.Second), true
}

// Limited reports how many calls of a Web API method got a 429.
func (s *Server) Limited(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.api.limited[method]
}
