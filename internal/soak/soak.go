// Package soak runs the approvals under faults that come together, as in
// a production week: bot replicas killed and replaced while people click,
// Socket Mode connections refreshed, Slack answering 5xx and 429, Step
// Functions throttling the calls that resume executions, DynamoDB
// throttling, deadlines passing. It runs real approvals-bot processes
// against DynamoDB Local (behind a fault-injecting proxy), the fake Slack
// and the Step Functions double, plays the people, lets everything settle
// and then checks that nothing was lost, doubled or left wrong. See
// docs/soak.md for the fault model and what a run proves.
package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/internal/dynamolocal"
	"github.com/sfnapprovals/approvals/internal/faultproxy"
	"github.com/sfnapprovals/approvals/lambdas/notifier"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
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
	// files a surviving replica may hold after the run than before (idle
	// connections kept by HTTP clients come and go).
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
		GoroutineSlack: 10, FDSlack: 4,
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

// run is one soak run in progress.
type run struct {
	o      Options
	out    io.Writer
	logDir string
	start  time.Time

	stack    *devstack.Stack
	slack    *fakeslack.Server
	fleet    *fleet
	inj      *injector
	ddbProxy *faultproxy.Proxy
	sfnProxy *faultproxy.Proxy

	plan   []*item
	people *dice
	homes  []*homeOpen

	mu       sync.Mutex
	byToken  map[string]*item
	byTS     map[string]*item // "channel ts" of each request message
	events   []event
	sockets  map[int]*replica // the fake's socket IDs → the replica that opened it
	baseline map[*replica]usage

	kills, terms, restarts, disconnects, deadlines atomic.Int64
	freezes                                        atomic.Int64
	modalsLost, homesReopened                      atomic.Int64
}

// event is something the soak did, for the timeline.
type event struct {
	at       time.Time
	what     string
	subjects []string // approval IDs it concerns; none for all
}

func (r *run) note(what string, subjects ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event{at: time.Now(), what: what, subjects: subjects})
}

// Run runs a soak and writes its report to o.Out. It returns the report's
// findings (each count must be zero), or an error when the run itself
// could not be carried out.
func Run(ctx context.Context, o Options) (Findings, error) {
	if runtime.GOOS != "linux" {
		return Findings{}, errors.New("the soak needs Linux: it kills processes and reads /proc")
	}
	if err := o.Check(); err != nil {
		return Findings{}, err
	}
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().UnixNano())
	}
	r := &run{o: o, out: o.Out, byToken: map[string]*item{}, byTS: map[string]*item{}, sockets: map[int]*replica{}, baseline: map[*replica]usage{}}
	if r.out == nil {
		r.out = io.Discard
	}
	r.logDir = o.LogDir
	keepLogs := o.LogDir != ""
	if r.logDir == "" {
		dir, err := os.MkdirTemp("", "approvals-soak-")
		if err != nil {
			return Findings{}, err
		}
		r.logDir = dir
	} else if err := os.MkdirAll(r.logDir, 0o755); err != nil {
		return Findings{}, err
	}
	f, err := r.run(ctx)
	if err == nil && f.Total() == 0 && !keepLogs {
		_ = os.RemoveAll(r.logDir)
	} else {
		fmt.Fprintf(r.out, "\nLogs and the timeline are in %s\n", r.logDir)
	}
	return f, err
}

func (r *run) run(ctx context.Context) (Findings, error) {
	o := r.o
	r.start = time.Now()
	fmt.Fprintf(r.out, "Soak: %d approvals (+%d warm-up) over %s, %d replicas (%d never killed), seed %d\n",
		o.Approvals, o.WarmUp, o.Duration, o.Replicas, o.Survivors, o.Seed)
	r.plan = makePlan(newDice(o.Seed, streamPlan).rng, o)
	r.people = newDice(o.Seed, streamPeople)
	r.inj = newInjector(o)
	r.inj.slackSubjects = r.slackSubjects

	binDir, err := os.MkdirTemp("", "approvals-soak-bin-")
	if err != nil {
		return Findings{}, err
	}
	defer os.RemoveAll(binDir)
	fmt.Fprintf(r.out, "Building approvals-bot%s…\n", map[bool]string{true: " with the race detector", false: ""}[o.Race])
	bin, err := buildBot(ctx, binDir, o.Race)
	if err != nil {
		return Findings{}, err
	}

	ddb, err := dynamolocal.StartWith(ctx, dynamolocal.Options{Nice: o.DDBNice})
	if err != nil {
		return Findings{}, err
	}
	defer ddb.Close()
	r.stack, err = devstack.Start(ctx, devstack.Options{
		DynamoDBEndpoint: ddb.Endpoint(),
		Replicas:         -1,
		Slack:            fakeslack.Options{Groups: groups(r.plan), Faults: r.inj.slackFault},
	})
	if err != nil {
		return Findings{}, err
	}
	defer r.stack.Close()
	r.slack = r.stack.Slack

	if r.ddbProxy, err = faultproxy.Start(faultproxy.Options{
		Target: ddb.Endpoint(), Service: faultproxy.DynamoDB, Decide: r.inj.ddbFault, Subjects: approvalIDs,
	}); err != nil {
		return Findings{}, err
	}
	defer r.ddbProxy.Close()
	if r.sfnProxy, err = faultproxy.Start(faultproxy.Options{
		Target: r.stack.SFN.URL(), Service: faultproxy.StepFunctions, Decide: r.inj.sfnFault, Subjects: r.tokenSubject,
	}); err != nil {
		return Findings{}, err
	}
	defer r.sfnProxy.Close()

	env := append(os.Environ(), r.stack.Env()...)
	env = append(env,
		"AWS_ENDPOINT_URL_DYNAMODB="+r.ddbProxy.URL(),
		"AWS_ENDPOINT_URL_SFN="+r.sfnProxy.URL(),
		"APPROVALS_SWEEP_INTERVAL="+o.SweepInterval.String(),
		"GORACE=halt_on_error=0",
	)
	r.fleet = newFleet(bin, env, r.logDir, o.Replicas)
	defer r.fleet.close(30 * time.Second)
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go r.watchSockets(watchCtx)
	for slot := range o.Replicas {
		if _, err := r.fleet.start(slot, slot < o.Survivors); err != nil {
			return Findings{}, err
		}
	}
	if err := r.waitConnections(ctx, o.Replicas); err != nil {
		return Findings{}, err
	}
	fmt.Fprintf(r.out, "Ready in %s: DynamoDB Local (nice %d) behind its fault proxy, the fake Slack, the Step Functions double behind its fault proxy, %d approvals-bot processes.\n",
		time.Since(r.start).Round(100*time.Millisecond), o.DDBNice, o.Replicas)

	if err := r.warmUp(ctx); err != nil {
		return Findings{}, err
	}
	for _, rep := range r.fleet.current() {
		if rep.survivor {
			u, err := settledUsage(ctx, rep)
			if err != nil {
				return Findings{}, err
			}
			r.baseline[rep] = u
		}
	}

	r.inj.slackOn.Store(true)
	phase := time.Now()
	if err := r.requestAll(ctx); err != nil {
		return Findings{}, err
	}
	fmt.Fprintf(r.out, "Requested %d approvals in %s (Slack's faults on).\n", o.Approvals, time.Since(phase).Round(100*time.Millisecond))

	fmt.Fprintf(r.out, "Click phase: %s of people acting and faults coming…\n", o.Duration)
	clicks := time.Now()
	r.inj.awsOn.Store(true)
	r.clickPhase(ctx)
	r.inj.stop()
	r.note("faults stop")
	fmt.Fprintf(r.out, "Click phase over after %s; faults stopped. Settling (at most %s)…\n", time.Since(clicks).Round(100*time.Millisecond), o.Settle)

	settled := time.Now()
	f, err := r.settle(ctx)
	if err != nil {
		return f, err
	}
	fmt.Fprintf(r.out, "Settled in %s.\n", time.Since(settled).Round(100*time.Millisecond))
	f.merge(r.replicaFindings(ctx))
	r.report(f)
	r.writeTimeline(f)
	return f, ctx.Err()
}

// waitConnections waits until n sockets are open.
func (r *run) waitConnections(ctx context.Context, n int) error {
	wait, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := r.slack.WaitConnections(wait, n); err != nil {
		return fmt.Errorf("the replicas did not connect to the fake Slack: %w", err)
	}
	return nil
}

var approvalID = regexp.MustCompile(`ap_[a-z2-7]{26}`)

// approvalIDs names the approvals a DynamoDB request is about.
func approvalIDs(body []byte) []string {
	return slices.Compact(slices.Sorted(slices.Values(approvalID.FindAllString(string(body), -1))))
}

// tokenSubject names the approval of a SendTask* request, by its token,
// never the token itself.
func (r *run) tokenSubject(body []byte) []string {
	var in struct {
		TaskToken string `json:"taskToken"`
	}
	if json.Unmarshal(body, &in) != nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if it := r.byToken[in.TaskToken]; it != nil && it.id() != "" {
		return []string{it.id()}
	}
	return nil
}

// slackSubjects names the approvals a Slack Web API call is about: the
// IDs in its parameters (blocks, a form's metadata), or the request
// message its ts or thread_ts names.
func (r *run) slackSubjects(params url.Values) []string {
	var ids []string
	for _, vs := range params {
		for _, v := range vs {
			ids = append(ids, approvalID.FindAllString(v, -1)...)
		}
	}
	r.mu.Lock()
	for _, key := range []string{"ts", "thread_ts"} {
		if it := r.byTS[params.Get("channel")+" "+params.Get(key)]; it != nil {
			ids = append(ids, it.id())
		}
	}
	r.mu.Unlock()
	return slices.Compact(slices.Sorted(slices.Values(ids)))
}

// watchSockets maps each socket the fake Slack accepts to the replica that
// opened it, while that process lives.
func (r *run) watchSockets(ctx context.Context) {
	port := r.slackPort()
	for {
		ch := r.slack.Changed()
		for _, s := range r.slack.Sockets() {
			r.mu.Lock()
			_, known := r.sockets[s.ID]
			r.mu.Unlock()
			if known || !s.Closed.IsZero() {
				continue
			}
			var pids []int
			byPID := map[int]*replica{}
			for _, rep := range r.fleet.every() {
				if rep.alive() {
					pids = append(pids, rep.pid)
					byPID[rep.pid] = rep
				}
			}
			if owner := byPID[socketOwner(s.Remote, port, pids)]; owner != nil {
				r.mu.Lock()
				r.sockets[s.ID] = owner
				r.mu.Unlock()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-ch:
		case <-time.After(time.Second): // a socket whose owner was not found yet
		}
	}
}

func (r *run) slackPort() int {
	var port int
	_, _ = fmt.Sscanf(r.slack.URL(), "http://127.0.0.1:%d/", &port)
	return port
}

// replicaOf names the replica a socket belonged to.
func (r *run) replicaOf(socket int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rep := r.sockets[socket]; rep != nil {
		return rep.String()
	}
	if socket == 0 {
		return "no socket"
	}
	return fmt.Sprintf("socket %d (replica unknown)", socket)
}

// warmUp decides the warm-up approvals with no fault, so that the
// replicas' pools and caches are warm when their baseline is measured.
func (r *run) warmUp(ctx context.Context) error {
	var list []*item
	for _, it := range r.plan {
		if it.warmUp {
			if err := r.request(ctx, it); err != nil {
				return err
			}
			list = append(list, it)
		}
	}
	var wg sync.WaitGroup
	for _, it := range list {
		wg.Go(func() { r.act(ctx, it) })
	}
	wg.Wait()
	wait, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for _, it := range list {
		if _, err := r.stack.WaitResumed(wait, it.pending.Token); err != nil {
			return fmt.Errorf("a warm-up approval, with no fault, was not decided: %w", err)
		}
	}
	return r.slack.WaitFor(wait, func() bool {
		for _, it := range list {
			if !r.final(it) {
				return false
			}
		}
		return true
	})
}

// requestAll pauses an execution on each approval of the click phase but
// the deadline ones, which are requested as the click phase starts.
func (r *run) requestAll(ctx context.Context) error {
	sem := make(chan struct{}, 8)
	errs := make(chan error, len(r.plan))
	var wg sync.WaitGroup
	for _, it := range r.plan {
		if it.warmUp || it.kind == kindDeadline {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs <- r.request(ctx, it)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// request pauses a new execution on it, as Step Functions runs the
// approval Task: it opens the task and invokes the notifier, retrying its
// errors as the shipped workflows' Retry does (SlackPostFailed: 6 attempts
// from 2 s, doubling, full jitter; StoreUnavailable: 3 from 2 s), and
// records the notifier's answer.
func (r *run) request(ctx context.Context, it *item) error {
	arn := fmt.Sprintf("arn:aws:states:us-east-1:123456789012:execution:approvals-soak:soak-%d", it.n)
	token := r.stack.SFN.StartTask(arn, "Approve")
	r.mu.Lock()
	r.byToken[token] = it
	r.mu.Unlock()
	started := time.Now()
	payload := it.payload()
	payload["taskToken"], payload["executionArn"], payload["stateName"] = token, arn, "Approve"
	raw, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	var resp notifier.Response
	for attempt := 1; ; attempt++ {
		invoke, cancel := context.WithTimeout(ctx, 30*time.Second) // the notifier's Lambda timeout
		resp, err = r.stack.Invoke(invoke, raw)
		cancel()
		if err == nil {
			break
		}
		var post *notifier.SlackPostFailed
		var store *notifier.StoreUnavailable
		switch {
		case errors.As(err, &post) && attempt < 6, errors.As(err, &store) && attempt < 3:
		default:
			return fmt.Errorf("request %d: %w", it.n, err)
		}
		interval := time.Duration(2<<(attempt-1)) * time.Second
		if post != nil {
			interval = r.people.between(0, min(interval, time.Minute)+1)
		}
		if !r.pause(ctx, interval) {
			return ctx.Err()
		}
	}
	out, _ := json.Marshal(map[string]any{"ExecutedVersion": "$LATEST", "Payload": resp, "StatusCode": 200})
	r.stack.SFN.Submit(token, out)
	r.mu.Lock()
	it.pending = devstack.Pending{Token: token, ExecutionARN: arn, Response: resp}
	r.byTS[resp.Channel+" "+resp.TS] = it
	if it.kind == kindDeadline {
		it.deadlineAt = started.Add(it.deadline)
	}
	r.mu.Unlock()
	return nil
}

// clickPhase plays the people and the faults for the run's duration, then
// waits for the people who are still at it.
func (r *run) clickPhase(ctx context.Context) {
	o := r.o
	start := time.Now()
	r.note("click phase starts")
	faultCtx, stopFaults := context.WithTimeout(ctx, o.Duration)
	defer stopFaults()
	var faults sync.WaitGroup
	if o.KillEvery > 0 {
		faults.Go(func() { r.replace(faultCtx) })
	}
	if o.DisconnectEvery > 0 {
		faults.Go(func() { r.disconnect(faultCtx) })
	}
	if o.FreezeEvery > 0 {
		faults.Go(func() { r.freeze(faultCtx) })
	}
	homes := newDice(o.Seed, streamHomes)
	for n := range o.HomeOpens {
		r.homes = append(r.homes, &homeOpen{viewer: fmt.Sprintf("U0V%05d", n), at: homes.between(0, o.Duration)})
	}

	var people sync.WaitGroup
	for _, it := range r.plan {
		if it.warmUp {
			continue
		}
		people.Go(func() {
			if it.kind == kindDeadline {
				if err := r.request(ctx, it); err != nil {
					r.note("not requested: " + err.Error())
					return
				}
				people.Go(func() { r.timeOutAt(ctx, it) })
				if it.variant == "never" || !r.pause(ctx, time.Until(it.deadlineAt.Add(it.at))) {
					return
				}
			} else if !r.pause(ctx, time.Until(start.Add(it.at))) {
				return
			}
			r.act(ctx, it)
		})
	}
	for _, h := range r.homes {
		people.Go(func() {
			if r.pause(ctx, time.Until(start.Add(h.at))) {
				r.openHome(ctx, h)
			}
		})
	}
	faults.Wait()
	people.Wait()
}

// timeOutAt times the task out at its deadline, as Step Functions does
// when the Task's TimeoutSeconds (the request's timeoutSeconds) passes.
func (r *run) timeOutAt(ctx context.Context, it *item) {
	if !r.pause(ctx, time.Until(it.deadlineAt)) {
		return
	}
	r.stack.SFN.TimeOut(it.pending.Token)
	r.deadlines.Add(1)
	r.note("deadline passed: Step Functions times the task out", it.id())
}

// replace kills and replaces a replica at random times until ctx ends.
func (r *run) replace(ctx context.Context) {
	d := newDice(r.o.Seed, streamKills)
	for r.pause(ctx, d.every(r.o.KillEvery)) {
		var candidates []*replica
		for _, rep := range r.fleet.current() {
			if rep != nil && !rep.survivor {
				candidates = append(candidates, rep)
			}
		}
		if len(candidates) == 0 {
			continue
		}
		victim := candidates[d.intN(len(candidates))]
		if d.hit(r.o.TermShare) {
			// A rolling deploy: the new task first, then SIGTERM.
			next, err := r.fleet.start(victim.slot, false)
			if err != nil {
				r.note("could not start a replica: " + err.Error())
				continue
			}
			r.restarts.Add(1)
			r.note(fmt.Sprintf("deploy: %s started to replace %s", next, victim))
			wait, cancel := context.WithTimeout(ctx, 30*time.Second)
			_ = r.slack.WaitFor(wait, func() bool { return r.ownsSocket(next) })
			cancel()
			r.terms.Add(1)
			r.note(fmt.Sprintf("SIGTERM %s", victim))
			r.fleet.stop(victim, syscall.SIGTERM, 30*time.Second)
			r.note(fmt.Sprintf("%s exited", victim))
			continue
		}
		r.kills.Add(1)
		r.note(fmt.Sprintf("SIGKILL %s", victim))
		r.fleet.stop(victim, syscall.SIGKILL, 10*time.Second)
		ended := !r.pause(ctx, r.o.RestartAfter) // the replacement starts all the same
		next, err := r.fleet.start(victim.slot, false)
		if err != nil {
			r.note("could not start a replica: " + err.Error())
			continue
		}
		r.restarts.Add(1)
		r.note(fmt.Sprintf("%s started to replace %s", next, victim))
		if ended {
			return
		}
	}
}

// freeze pauses a random replica at random times until ctx ends, and
// lets it go on FreezeFor later.
func (r *run) freeze(ctx context.Context) {
	d := newDice(r.o.Seed, streamFreezes)
	for r.pause(ctx, d.every(r.o.FreezeEvery)) {
		var live []*replica
		for _, rep := range r.fleet.current() {
			if rep != nil {
				live = append(live, rep)
			}
		}
		if len(live) == 0 {
			continue
		}
		rep := live[d.intN(len(live))]
		if rep.cmd.Process.Signal(syscall.SIGSTOP) != nil {
			continue
		}
		r.freezes.Add(1)
		r.note(fmt.Sprintf("SIGSTOP %s for %s", rep, r.o.FreezeFor))
		r.pause(context.WithoutCancel(ctx), r.o.FreezeFor)
		_ = rep.cmd.Process.Signal(syscall.SIGCONT)
		r.note(fmt.Sprintf("SIGCONT %s", rep))
	}
}

// ownsSocket reports whether the replica has an open socket.
func (r *run) ownsSocket(rep *replica) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, owner := range r.sockets {
		if owner == rep {
			for _, s := range r.slack.Sockets() {
				if s.ID == id && s.Closed.IsZero() {
					return true
				}
			}
		}
	}
	return false
}

// disconnect has Slack refresh one socket at random times until ctx ends.
func (r *run) disconnect(ctx context.Context) {
	d := newDice(r.o.Seed, streamDisconnects)
	for r.pause(ctx, d.every(r.o.DisconnectEvery)) {
		reason := []string{fakeslack.ReasonRefreshRequested, fakeslack.ReasonWarning}[d.intN(2)]
		if id := r.slack.DisconnectOne(reason); id != 0 {
			r.disconnects.Add(1)
			r.note(fmt.Sprintf("Slack disconnects socket %d of %s (%s)", id, r.replicaOf(id), reason))
		}
	}
}
