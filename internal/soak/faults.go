package soak

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sfnapprovals/approvals/internal/faultproxy"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// dice is a seeded source of chance, safe for concurrent use. Each fault
// has its own, so the seed fixes each fault's draws; which call meets
// which draw depends on timing, which no seed fixes.
type dice struct {
	mu  sync.Mutex
	rng *rand.Rand
}

func newDice(seed uint64, stream uint64) *dice {
	return &dice{rng: rand.New(rand.NewPCG(seed, stream))}
}

// hit is true with probability p.
func (d *dice) hit(p float64) bool {
	if p <= 0 {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rng.Float64() < p
}

func (d *dice) intN(n int) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rng.IntN(n)
}

// between is a duration drawn evenly from [lo, hi).
func (d *dice) between(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return lo + time.Duration(d.rng.Int64N(int64(hi-lo)))
}

// every is the pause before the next of events that come on average once
// per mean, at random (a Poisson process); at most 4× the mean.
func (d *dice) every(mean time.Duration) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	x := -math.Log(1-d.rng.Float64()) * float64(mean)
	return time.Duration(min(x, 4*float64(mean)))
}

// Streams of the seed, one per source of chance.
const (
	streamPlan uint64 = iota + 1
	streamSlack
	streamDynamoDB
	streamSFN
	streamKills
	streamDisconnects
	streamPeople
	streamHomes
	streamFreezes
)

// injector decides the faults of Slack's Web API, DynamoDB and Step
// Functions calls at the run's rates, while it is on, and counts them.
type injector struct {
	o     Options
	slack *dice
	ddb   *dice
	sfn   *dice

	slackOn atomic.Bool // Slack's faults, from the request phase on
	awsOn   atomic.Bool // DynamoDB's and Step Functions', in the click phase

	slackCalls, slack5xx, slack429, slackLost atomic.Int64
	ddbCalls, sfnCalls                        atomic.Int64

	// slackSubjects names the approvals a Web API call is about.
	slackSubjects func(url.Values) []string
	mu            sync.Mutex
	slackFaults   []faultproxy.Record
}

func newInjector(o Options) *injector {
	return &injector{
		o:     o,
		slack: newDice(o.Seed, streamSlack),
		ddb:   newDice(o.Seed, streamDynamoDB),
		sfn:   newDice(o.Seed, streamSFN),
	}
}

// stop ends every fault.
func (f *injector) stop() {
	f.slackOn.Store(false)
	f.awsOn.Store(false)
}

// slackFault is the fake Slack's Options.Faults: a 5xx (not applied), a
// lost answer (applied, then a 5xx), or a 429 with a Retry-After of 1 to
// 3 s, on any Web API method.
func (f *injector) slackFault(method string, params url.Values) fakeslack.Fault {
	if !f.slackOn.Load() {
		return fakeslack.Fault{}
	}
	f.slackCalls.Add(1)
	var fault fakeslack.Fault
	var kind string
	switch {
	case f.slack.hit(f.o.Slack5xx):
		f.slack5xx.Add(1)
		fault = fakeslack.Fault{Status: []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable}[f.slack.intN(3)]}
		kind = fmt.Sprint(fault.Status)
	case f.slack.hit(f.o.Slack429):
		f.slack429.Add(1)
		fault = fakeslack.Fault{Status: http.StatusTooManyRequests, RetryAfter: 1 + f.slack.intN(3)}
		kind = fmt.Sprintf("429 (Retry-After %d)", fault.RetryAfter)
	case f.slack.hit(f.o.SlackLostAnswer):
		f.slackLost.Add(1)
		fault = fakeslack.Fault{Status: http.StatusInternalServerError, Applied: true}
		kind = "500 after applying it"
	default:
		return fault
	}
	rec := faultproxy.Record{At: time.Now(), Service: "slack", Op: method + " answered " + kind}
	if f.slackSubjects != nil {
		rec.Subjects = f.slackSubjects(params)
	}
	f.mu.Lock()
	f.slackFaults = append(f.slackFaults, rec)
	f.mu.Unlock()
	return fault
}

// slackRecords are the Slack faults injected so far.
func (f *injector) slackRecords() []faultproxy.Record {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.slackFaults)
}

// ddbFault decides the fault of one DynamoDB request, whatever its
// operation.
func (f *injector) ddbFault(string) faultproxy.Kind {
	if !f.awsOn.Load() {
		return faultproxy.Pass
	}
	f.ddbCalls.Add(1)
	return pick(f.ddb, f.o.DDBThrottle, f.o.DDB5xx, f.o.DDBLostAnswer)
}

// sfnFault decides the fault of one Step Functions request: only the
// calls that resume an execution are failed.
func (f *injector) sfnFault(op string) faultproxy.Kind {
	if !f.awsOn.Load() || (op != "SendTaskSuccess" && op != "SendTaskFailure") {
		return faultproxy.Pass
	}
	f.sfnCalls.Add(1)
	return pick(f.sfn, f.o.SFNThrottle, f.o.SFN5xx, f.o.SFNLostAnswer)
}

func pick(d *dice, throttle, serverError, lost float64) faultproxy.Kind {
	switch {
	case d.hit(throttle):
		return faultproxy.Throttle
	case d.hit(serverError):
		return faultproxy.ServerError
	case d.hit(lost):
		return faultproxy.LostAnswer
	}
	return faultproxy.Pass
}
