// Command approvals-soak runs the approvals under faults that come
// together (`make soak`): real approvals-bot processes killed and
// replaced while people click, Slack refreshing sockets and answering 5xx
// and 429, Step Functions and DynamoDB throttling, deadlines passing; then
// it checks that nothing was lost, doubled or left wrong, prints what it
// injected and found, and exits 1 when any count is not zero. Run it
// inside the repository (it builds cmd/approvals-bot). See docs/soak.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/sfnapprovals/approvals/internal/soak"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, errFound) {
			fmt.Fprintln(os.Stderr, "approvals-soak:", err)
		}
		os.Exit(1)
	}
}

// errFound is a run that found something wrong: the report says what.
var errFound = errors.New("the soak found problems")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	o.Out = stdout
	f, err := soak.Run(ctx, o)
	if err != nil {
		return err
	}
	if f.Total() > 0 {
		return errFound
	}
	return nil
}

func parseFlags(args []string, stderr io.Writer) (soak.Options, error) {
	o := soak.Defaults()
	fs := flag.NewFlagSet("approvals-soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: approvals-soak [flags]\n\nRuns the approvals under faults and checks that nothing is lost (docs/soak.md). Shares are from 0 to 1.\n\nFlags:")
		fs.PrintDefaults()
	}
	fs.IntVar(&o.Approvals, "approvals", o.Approvals, "approvals acted on while faults come")
	fs.IntVar(&o.WarmUp, "warm-up", o.WarmUp, "approvals decided before the faults, so the survivors' baseline is taken warm")
	fs.DurationVar(&o.Duration, "duration", o.Duration, "the click phase: people act and faults come")
	fs.IntVar(&o.Replicas, "replicas", o.Replicas, "approvals-bot processes")
	fs.IntVar(&o.Survivors, "survivors", o.Survivors, "replicas never killed, whose goroutines and open files are compared before and after")
	fs.DurationVar(&o.Settle, "settle", o.Settle, "how long to wait, after the faults, for everything to end and show its end")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the plan and of every fault's draws (0: from the clock; printed)")
	fs.Func("mix", "share of each kind of approval, in percent (default "+soak.DefaultMix.String()+")", func(s string) error {
		m, err := soak.ParseMix(s)
		if err == nil {
			o.Mix = m
		}
		return err
	})
	fs.DurationVar(&o.KillEvery, "kill-every", o.KillEvery, "mean time between replacements of a random replica (0: none)")
	fs.Float64Var(&o.TermShare, "term-share", o.TermShare, "share of replacements done as a rolling deploy (new process first, then SIGTERM); the rest are SIGKILL")
	fs.DurationVar(&o.RestartAfter, "restart-after", o.RestartAfter, "how long a killed replica stays down before its replacement starts")
	fs.DurationVar(&o.FreezeEvery, "freeze-every", o.FreezeEvery, "mean time between pauses of a random replica (SIGSTOP, then SIGCONT), which leave its sockets open and its envelopes unacked (0: none)")
	fs.DurationVar(&o.FreezeFor, "freeze-for", o.FreezeFor, "how long a paused replica stays paused")
	fs.DurationVar(&o.DisconnectEvery, "disconnect-every", o.DisconnectEvery, "mean time between Slack refreshing one Socket Mode connection (0: none)")
	fs.Float64Var(&o.Slack5xx, "slack-5xx", o.Slack5xx, "share of Slack Web API calls answered 500, 502 or 503 (not applied)")
	fs.Float64Var(&o.Slack429, "slack-429", o.Slack429, "share of Slack Web API calls answered 429 with Retry-After 1-3 s")
	fs.Float64Var(&o.SlackLostAnswer, "slack-lost-answer", o.SlackLostAnswer, "share of Slack Web API calls applied, then answered 500")
	fs.Float64Var(&o.SFNThrottle, "sfn-throttle", o.SFNThrottle, "share of SendTaskSuccess/SendTaskFailure calls answered ThrottlingException (not applied)")
	fs.Float64Var(&o.SFN5xx, "sfn-5xx", o.SFN5xx, "share of SendTaskSuccess/SendTaskFailure calls answered InternalFailure 500 or ServiceUnavailable 503 (not applied)")
	fs.Float64Var(&o.SFNLostAnswer, "sfn-lost-answer", o.SFNLostAnswer, "share of SendTaskSuccess/SendTaskFailure calls applied, then the connection dropped")
	fs.Float64Var(&o.DDBThrottle, "ddb-throttle", o.DDBThrottle, "share of DynamoDB requests answered ProvisionedThroughputExceededException (not applied)")
	fs.Float64Var(&o.DDB5xx, "ddb-5xx", o.DDB5xx, "share of DynamoDB requests answered InternalServerError 500 (not applied)")
	fs.Float64Var(&o.DDBLostAnswer, "ddb-lost-answer", o.DDBLostAnswer, "share of DynamoDB requests applied, then the connection dropped")
	fs.IntVar(&o.HomeOpens, "home-opens", o.HomeOpens, "people opening their App Home during the click phase (Events API envelopes)")
	fs.DurationVar(&o.SweepInterval, "sweep-interval", o.SweepInterval, "the replicas' APPROVALS_SWEEP_INTERVAL")
	fs.IntVar(&o.GoroutineSlack, "goroutine-slack", o.GoroutineSlack, "goroutines a surviving replica may hold beyond its baseline")
	fs.IntVar(&o.FDSlack, "fd-slack", o.FDSlack, "open files a surviving replica may hold beyond its baseline")
	fs.IntVar(&o.DDBNice, "ddb-nice", o.DDBNice, "CPU priority (nice) of DynamoDB Local, which stands in for a service on other machines")
	fs.BoolVar(&o.Race, "race", o.Race, "build the replicas with the race detector; a race they report fails the run")
	fs.StringVar(&o.LogDir, "logs", o.LogDir, "`folder` for the replicas' logs and the timeline (default: a temporary one, kept only when the run found problems)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q (see -h)", fs.Args())
	}
	return o, o.Check()
}
