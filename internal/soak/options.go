package soak

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// Options configure a run. Zero fields take Defaults' values, except the
// fault rates, where zero means none: start from Defaults().
type Options struct {
	// Approvals is how many approvals the people act on while faults are
	// injected; WarmUp more are decided before, with no fault, so the
	// replicas' idle goroutines and files are measured warm.
	Approvals, WarmUp int
	// Duration is the click phase, when people act and faults come.
	Duration time.Duration
	// Replicas is how many approvals-bot processes run; Survivors of them
	// are never killed, and their goroutines and open files are compared
	// before and after.
	Replicas, Survivors int
	// Settle bounds the wait, once the faults stop, for every approval to
	// end and show its end (a claim a killed replica held needs its lease,
	// a minute, and a sweep; a passed deadline its grace, a minute).
	Settle time.Duration
	// Seed fixes the plan and every fault's draws; 0 takes one from the
	// clock (printed, to run it again).
	Seed uint64
	// Mix is the share of each kind of approval.
	Mix Mix

	// KillEvery is the mean time between replacements of a replica (at
	// random times): SIGKILL, then a new process RestartAfter later, as
	// when a task crashes; or, for TermShare of them, a new process first
	// and then SIGTERM to the old one, as a rolling deploy does. 0: none.
	KillEvery    time.Duration
	TermShare    float64
	RestartAfter time.Duration
	// FreezeEvery is the mean time between pauses of a random replica
	// (SIGSTOP, then SIGCONT FreezeFor later), as a long GC pause, a
	// starved CPU or a hung container does: its sockets stay open, so
	// Slack keeps delivering to it and the envelopes go unacked. 0: none.
	FreezeEvery, FreezeFor time.Duration
	// DisconnectEvery is the mean time between Slack refreshing one
	// Socket Mode connection (a disconnect message, then the socket
	// closes). 0: none.
	DisconnectEvery time.Duration
	// Shares of Slack Web API calls answered 5xx (not applied), 429 with a
	// Retry-After of 1–3 s, or applied with their answer lost (a 500).
	Slack5xx, Slack429, SlackLostAnswer float64
	// Shares of SendTaskSuccess and SendTaskFailure calls throttled
	// (ThrottlingException), answered 5xx (both not applied), or applied
	// with their answer lost.
	SFNThrottle, SFN5xx, SFNLostAnswer float64
	// Shares of DynamoDB requests throttled
	// (ProvisionedThroughputExceededException), answered 5xx (both not
	// applied), or applied with their answer lost.
	DDBThrottle, DDB5xx, DDBLostAnswer float64
	// HomeOpens is how many people open their App Home during the click
	// phase (events_api envelopes, which Slack redelivers when unacked).
	HomeOpens int

	// SweepInterval is the replicas' APPROVALS_SWEEP_INTERVAL.
	SweepInterval time.Duration
	// GoroutineSlack and FDSlack are how many more goroutines and open
	// files a surviving replica may hold after the run than before: the
	// AWS SDK's transport keeps up to 10 idle connections per host for
	// 90 s (each a file and two goroutines), and a burst of decisions
	// fills DynamoDB's pool (3 to 10 connections in a default run: 14
	// goroutines and 7 files more), so the defaults cover about one full
	// pool; a leak per decision shows as one per approval.
	GoroutineSlack, FDSlack int
	// DDBNice is DynamoDB Local's CPU priority (nice), which stands in for
	// a service on other machines.
	DDBNice int
	// Race builds the replicas with the race detector; a race they report
	// fails the run.
	Race bool
	// LogDir keeps the replicas' logs and the run's timeline; "" makes a
	// temporary folder, removed after a run that found nothing.
	LogDir string
	// Out receives the report; nil discards it.
	Out io.Writer
}

// Defaults are the options of `make soak`.
func Defaults() Options {
	return Options{
		Approvals: 500, WarmUp: 6, Duration: 2 * time.Minute, Replicas: 3, Survivors: 1, Settle: 4 * time.Minute,
		Mix:       DefaultMix,
		KillEvery: 10 * time.Second, TermShare: 0.25, RestartAfter: 2 * time.Second, DisconnectEvery: 8 * time.Second,
		FreezeEvery: 20 * time.Second, FreezeFor: 5 * time.Second,
		Slack5xx: 0.02, Slack429: 0.02,
		SFNThrottle: 0.05, SFN5xx: 0.02,
		DDBThrottle: 0.03, DDB5xx: 0.01,
		HomeOpens:      50,
		SweepInterval:  5 * time.Second,
		GoroutineSlack: 24, FDSlack: 12,
		DDBNice: 15,
	}
}

// Check validates the options.
func (o Options) Check() error {
	shares := map[string]float64{
		"slack-5xx": o.Slack5xx, "slack-429": o.Slack429, "slack-lost-answer": o.SlackLostAnswer,
		"sfn-throttle": o.SFNThrottle, "sfn-5xx": o.SFN5xx, "sfn-lost-answer": o.SFNLostAnswer,
		"ddb-throttle": o.DDBThrottle, "ddb-5xx": o.DDB5xx, "ddb-lost-answer": o.DDBLostAnswer,
		"term-share": o.TermShare,
	}
	for _, name := range slices.Sorted(maps.Keys(shares)) {
		if v := shares[name]; v < 0 || v > 1 {
			return fmt.Errorf("-%s must be a share from 0 to 1, not %v", name, v)
		}
	}
	total := 0
	for _, k := range kinds {
		total += o.Mix[k]
	}
	switch {
	case o.Approvals < 1 || o.Approvals > 100000:
		return fmt.Errorf("-approvals must be from 1 to 100000, not %d", o.Approvals)
	case o.WarmUp < 0:
		return fmt.Errorf("-warm-up must not be negative")
	case o.Duration < 10*time.Second:
		return fmt.Errorf("-duration must be at least 10s, not %s", o.Duration)
	case o.Replicas < 2 || o.Replicas > 9:
		return fmt.Errorf("-replicas must be from 2 to 9 (Slack allows 10 sockets), not %d", o.Replicas)
	case o.Survivors < 0 || o.Survivors >= o.Replicas:
		return fmt.Errorf("-survivors must be from 0 to %d, one fewer than the replicas", o.Replicas-1)
	case o.Settle < time.Minute:
		return fmt.Errorf("-settle must be at least 1m: a claim held by a killed replica waits its lease (%s)", workflow.DefaultClaimLease)
	case total != 100:
		return fmt.Errorf("-mix must add up to 100")
	case o.KillEvery < 0 || o.DisconnectEvery < 0 || o.RestartAfter < 0 || o.FreezeEvery < 0 || o.FreezeFor < 0:
		return fmt.Errorf("-kill-every, -restart-after, -freeze-every, -freeze-for and -disconnect-every must not be negative")
	case o.FreezeEvery > 0 && (o.FreezeFor <= 0 || o.FreezeFor >= workflow.DefaultClaimLease/2):
		return fmt.Errorf("-freeze-for must be above 0 and below %s (half the claim lease), not %s", workflow.DefaultClaimLease/2, o.FreezeFor)
	case o.KillEvery > 0 && o.KillEvery < time.Second:
		return fmt.Errorf("-kill-every must be at least 1s, not %s", o.KillEvery)
	case o.HomeOpens < 0:
		return fmt.Errorf("-home-opens must not be negative")
	case o.SweepInterval < time.Second:
		return fmt.Errorf("-sweep-interval must be at least 1s (the bot's minimum)")
	}
	return nil
}
