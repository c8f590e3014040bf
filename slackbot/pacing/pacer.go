package pacing

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/sfnapprovals/approvals/slackbot/chat"
)

// rules holds the constants of a pacer's rules; the simulation tests
// check them against models of Slack's limits.
type rules struct {
	Decrease float64       // a 429 sets the rate to this fraction of the rate achieved
	Measure  time.Duration // how far back the achieved rate is measured
	Growth   float64       // while the pace holds callers back, the rate grows by this fraction per second…
	Additive float64       // …plus this many calls per second, per second
	Floor    float64       // the lowest rate, in calls per second
	Forget   time.Duration // after this long without a call (pauses aside) the rate is forgotten
}

// recheck bounds how long a caller held back by the pace waits before
// asking again.
const recheck = time.Second

var defaultRules = rules{
	Decrease: 0.85,
	Measure:  10 * time.Second,
	Growth:   0.4,
	Additive: 3,
	Floor:    1.0 / 60,
	Forget:   time.Minute,
}

// Pacer paces the calls of one Slack method (or of one channel) by Slack's
// own answers, without knowing the limit:
//
//   - It starts unpaced: calls go out as fast as callers make them.
//   - A 429 pauses every caller for its Retry-After and sets the rate to
//     85% of the rate of successful calls over the last 10 s (or of the
//     current rate, if lower). Further 429s for calls sent before that
//     only extend the pause, and a 429 that comes before any call went
//     through since the previous pause lowers nothing: the window was
//     spent by somebody else.
//   - While the pace holds callers back, the rate grows by 40% per
//     second plus 3 calls/s per second, so it probes back up and takes
//     over capacity others leave; the same absolute term for every replica
//     is what brings replicas that each pace themselves to equal shares of
//     the limit. A pacer that holds nobody back learns nothing and stays.
//   - A minute without calls, pauses aside, forgets the rate.
//   - An optional ceiling, a token bucket, is never exceeded.
//
// It is safe for concurrent use.
type Pacer struct {
	p       rules
	now     func() time.Time
	ceiling *bucket // nil: no ceiling

	mu     sync.Mutex
	rate   float64     // calls per second; +Inf while unpaced
	pace   bucket      // spaces calls at rate
	paused time.Time   // no call before this
	cut    time.Time   // when the rate was last lowered
	busy   time.Time   // first call since the rate was last forgotten
	lastOK time.Time   // the latest success
	heldTo time.Time   // callers held back by the pace wait until here
	grown  time.Time   // the rate's growth is accounted up to here
	last   time.Time   // the latest call let through
	oks    []time.Time // successes within the last p.Measure
}

// New returns an unpaced Pacer under ceiling (zero: none).
func New(ceiling Rate) *Pacer {
	pc := &Pacer{p: defaultRules, now: time.Now, rate: math.Inf(1)}
	if ceiling.Events > 0 {
		pc.ceiling = newBucket(ceiling)
	}
	return pc
}

// Rate is the pace in calls per second: +Inf while unpaced (the ceiling's
// rate, if there is one), 0 while paused by a 429.
func (pc *Pacer) Rate() float64 {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.now().Before(pc.paused) {
		return 0
	}
	r := pc.rate
	if pc.ceiling != nil {
		r = min(r, pc.ceiling.rate)
	}
	return r
}

// Wait blocks until a call may be made or ctx is done. It returns the
// instant the call was let through, for Done.
func (pc *Pacer) Wait(ctx context.Context) (time.Time, error) {
	for {
		at, d := pc.take()
		if d <= 0 {
			return at, nil
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return time.Time{}, ctx.Err()
		case <-t.C:
		}
	}
}

// take lets a call through now, or says how long to wait before asking
// again.
func (pc *Pacer) take() (time.Time, time.Duration) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	now := pc.now()
	if now.Before(pc.paused) {
		return now, pc.paused.Sub(now)
	}
	if pc.last.IsZero() || pc.quiet(now) {
		pc.rate, pc.busy = math.Inf(1), now
	}
	paced := !math.IsInf(pc.rate, 1)
	if paced {
		pc.grow(now)
	}
	var wait time.Duration
	if paced {
		pc.pace.rate, pc.pace.burst = pc.rate, 1
		wait = pc.pace.due(now)
	}
	if pc.ceiling != nil {
		wait = max(wait, pc.ceiling.due(now))
	}
	if wait > 0 {
		// The rate grows while callers wait, so a caller held back asks
		// again at least every recheck rather than sleeping on an old pace.
		wait = min(wait, recheck)
		pc.heldTo = later(pc.heldTo, now.Add(wait))
		return now, wait
	}
	if paced {
		pc.pace.tokens--
	}
	if pc.ceiling != nil {
		pc.ceiling.tokens--
	}
	pc.last = now
	return now, 0
}

// Done reports Slack's answer to the call let through at sent; err is the
// call's error. It reports whether the answer was a 429, after which every
// caller is paused for the Retry-After it returns.
func (pc *Pacer) Done(sent time.Time, err error) (time.Duration, bool) {
	if d, ok := chat.RetryAfter(err); ok {
		pc.limited(sent, d)
		return d, true
	}
	if err == nil || chat.Code(err) != "" {
		pc.succeeded()
	}
	return 0, false
}

func (pc *Pacer) succeeded() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	now := pc.now()
	horizon := now.Add(-pc.p.Measure)
	i := 0
	for i < len(pc.oks) && !pc.oks[i].After(horizon) {
		i++
	}
	pc.oks = append(pc.oks[i:], now)
	pc.lastOK = now
}

// grow raises the rate for the time since it was last raised during which
// callers were held back by the pace: a pacer that is not the bottleneck
// learns nothing about the limit.
func (pc *Pacer) grow(now time.Time) {
	from := later(pc.grown, pc.paused)
	to := now
	if pc.heldTo.Before(to) {
		to = pc.heldTo
	}
	if to.After(from) {
		pc.rate += (pc.p.Growth*pc.rate + pc.p.Additive) * to.Sub(from).Seconds()
	}
	pc.grown = now
}

func (pc *Pacer) limited(sent time.Time, retryAfter time.Duration) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	now := pc.now()
	resumed := pc.paused
	if !math.IsInf(pc.rate, 1) {
		pc.grow(now)
	}
	if until := now.Add(retryAfter); until.After(pc.paused) {
		pc.paused = until
		pc.pace.tokens, pc.pace.last = 1, until
		if pc.ceiling != nil {
			pc.ceiling.due(until)
			pc.ceiling.tokens = min(pc.ceiling.tokens, 1)
		}
	}
	switch {
	case sent.Before(pc.cut):
		return // already lowered for this episode
	case !math.IsInf(pc.rate, 1) && !pc.lastOK.After(resumed):
		return // nothing went through since the last pause: others spent the window
	}
	pc.cut = now
	pc.rate = max(pc.p.Floor, pc.p.Decrease*min(pc.rate, pc.achieved(now)))
}

// achieved is the rate of successes over the last p.Measure, or since the
// pacer became busy if that is more recent.
func (pc *Pacer) achieved(now time.Time) float64 {
	from := later(now.Add(-pc.p.Measure), pc.busy)
	n := 0
	for _, t := range pc.oks {
		if !t.Before(from) {
			n++
		}
	}
	span := max(now.Sub(from), 100*time.Millisecond)
	return float64(max(n, 1)) / span.Seconds()
}

// idle reports whether the pacer has nothing to remember, so dropping it
// changes nothing.
func (pc *Pacer) idle() bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	now := pc.now()
	return !now.Before(pc.paused) && (pc.last.IsZero() || pc.quiet(now))
}

// quiet reports whether no call was let through for p.Forget, pauses
// aside.
func (pc *Pacer) quiet(now time.Time) bool {
	return now.Sub(later(pc.last, pc.paused)) >= pc.p.Forget
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Release hands back the call the latest Wait let through, when the caller
// found it need not be made.
func (pc *Pacer) Release() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if !math.IsInf(pc.rate, 1) {
		pc.pace.tokens++
	}
	if pc.ceiling != nil {
		pc.ceiling.tokens++
	}
}
