package pacing

import (
	"container/heap"
	"math/rand/v2"
	"time"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// The simulation runs the update workers of several replicas, each with
// its own pacer, against the fake Slack's model of Slack's limit
// (fakeslack.RateLimit), on a virtual clock: no sleeping, and the same
// answer on every run.

type simConfig struct {
	Replicas int
	Workers  int             // update workers per replica, as Config.UpdateWorkers
	Messages int             // decisions, each to a replica at random
	Arrive   time.Duration   // a replica's decisions arrive uniformly within this…
	Join     []time.Duration // …from its Join time (default 0)
	Latency  time.Duration   // one way; a call takes 2×Latency ±50%
	Wake     time.Duration   // a waiting worker wakes up to this late
	Limit    fakeslack.RateLimit
	Ceiling  Rate
	Seed     uint64
	Until    time.Duration // stop then, if not done before (0: when all are updated)
	From     time.Duration // count simResult.Since from then
}

type simResult struct {
	Done    time.Duration // from the first decision until the last message was updated
	Calls   int
	Limited int
	Since   []int // messages each replica updated from simConfig.From on
}

func simulate(cfg simConfig) simResult {
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	t0 := time.Unix(1_700_000_000, 0)
	now := t0
	var events simQueue
	seq := 0
	at := func(t time.Time, fn func()) {
		seq++
		heap.Push(&events, simEvent{at: t, seq: seq, fn: fn})
	}
	lim := cfg.Limit.Allowance()
	res := simResult{Since: make([]int, cfg.Replicas)}
	left := cfg.Messages

	type replica struct {
		pc     *Pacer
		queued int
		idle   int
	}
	reps := make([]*replica, cfg.Replicas)
	for i := range reps {
		pc := New(cfg.Ceiling)
		pc.now = func() time.Time { return now }
		reps[i] = &replica{pc: pc, idle: cfg.Workers}
	}
	latency := func() time.Duration {
		return time.Duration(float64(cfg.Latency) * (0.5 + rng.Float64()))
	}
	var work func(i int)
	var try func(i int)
	try = func(i int) {
		r := reps[i]
		sent, d := r.pc.take()
		if d > 0 {
			at(now.Add(d+time.Duration(rng.Float64()*float64(cfg.Wake))), func() { try(i) })
			return
		}
		res.Calls++
		at(now.Add(latency()), func() {
			ra, ok := lim.Take(now)
			limited := !ok
			at(now.Add(latency()), func() {
				if limited {
					res.Limited++
					r.pc.Done(sent, &slack.RateLimitedError{RetryAfter: ra})
					r.queued++
				} else {
					r.pc.Done(sent, nil)
					left--
					res.Done = now.Sub(t0)
					if now.Sub(t0) >= cfg.From {
						res.Since[i]++
					}
				}
				r.idle++
				work(i)
			})
		})
	}
	work = func(i int) {
		r := reps[i]
		for r.idle > 0 && r.queued > 0 {
			r.idle--
			r.queued--
			try(i)
		}
	}
	for range cfg.Messages {
		i := rng.IntN(cfg.Replicas) // Slack hands each click to any connection
		var join time.Duration
		if i < len(cfg.Join) {
			join = cfg.Join[i]
		}
		at(t0.Add(join+time.Duration(rng.Float64()*float64(cfg.Arrive))), func() {
			reps[i].queued++
			work(i)
		})
	}
	for events.Len() > 0 && left > 0 {
		e := heap.Pop(&events).(simEvent)
		if cfg.Until > 0 && e.at.Sub(t0) > cfg.Until {
			break
		}
		now = e.at
		e.fn()
	}
	return res
}

type simEvent struct {
	at  time.Time
	seq int
	fn  func()
}

// simQueue orders events by time, then by when they were scheduled.
type simQueue []simEvent

func (q simQueue) Len() int { return len(q) }
func (q simQueue) Less(i, j int) bool {
	if q[i].at.Equal(q[j].at) {
		return q[i].seq < q[j].seq
	}
	return q[i].at.Before(q[j].at)
}
func (q simQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *simQueue) Push(x any)   { *q = append(*q, x.(simEvent)) }
func (q *simQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}
