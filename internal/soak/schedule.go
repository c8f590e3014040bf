package soak

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

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
