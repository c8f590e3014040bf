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
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/internal/dynamolocal"
	"github.com/sfnapprovals/approvals/internal/faultproxy"
	"github.com/sfnapprovals/approvals/lambdas/notifier"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

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
