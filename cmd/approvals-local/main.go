// Command approvals-local runs the whole product on this machine, with no
// AWS account: the local Step Functions engine behind its API on a fixed
// port, DynamoDB Local keeping its data in a folder, the notifier and the
// events handler as in-process Lambda functions, the real approvals bot,
// and a stand-in for Slack (a fake Slack with a web page) — or, with
// SLACK_BOT_TOKEN and SLACK_APP_TOKEN set, your real Slack workspace.
// Ctrl-C stops all of it. Run with -h for the flags.
//
// With -demo it plays a scripted story instead (every kind of decision,
// then a shipped state machine on the local engine), and with -load N the
// load benchmark.
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
	"time"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/internal/dynamolocal"
	"github.com/sfnapprovals/approvals/slackbot"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first Ctrl-C stops everything in order; a second one quits at
	// once (DynamoDB Local's JVM dies with the process on Linux).
	context.AfterFunc(ctx, stop)
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "approvals-local:", err)
		os.Exit(1)
	}
}

// People in the demo workspace.
const (
	alice   = "U0ALICE"
	bob     = "U0BOB"
	carol   = "U0CAROL"
	mallory = "U0MALLORY"
	editors = "S0EDITORS"
	channel = "C0PUBLISH"
)

var names = map[string]string{alice: "alice", bob: "bob", carol: "carol", mallory: "mallory", editors: "editors"}

// run runs what args ask for until ctx ends. Flag errors and -h are
// written to stderr; the product's banner and events, the demo and the
// load report to stdout.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("approvals-local", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {
		fmt.Fprint(flags.Output(), usage)
		flags.PrintDefaults()
	}
	demo := flags.Bool("demo", false, "play the scripted demo instead: every kind of decision, then a shipped state machine on the local engine")
	load := flags.Int("load", 0, "run the load benchmark with this many approvals and clicks instead")
	logPath := flags.String("logs", "", "write every component's JSON logs to this `file` (default: <data>/approvals-local.log; none for -demo and -load)")
	ddbNice := flags.Int("ddb-nice", 0, "with -load: CPU priority (nice) of DynamoDB Local; above 0 (such as 15) it takes less of the bots' CPU, as DynamoDB on other machines would")
	updateLimit := flags.String("slack-update-limit", "20/s,burst=20", "with -load: how the fake Slack limits chat.update, in minute windows with a burst allowance: N/s or N/min, optionally ,burst=B (50/min is Slack's Tier 3)")
	product := productFlags(flags)
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (see -h)", flags.Args())
	}
	if *demo || *load > 0 {
		limit, err := parseLimit(*updateLimit)
		if err != nil {
			return fmt.Errorf("-slack-update-limit: %w", err)
		}
		logs := io.Discard
		if *logPath != "" {
			f, err := os.Create(*logPath)
			if err != nil {
				return err
			}
			defer f.Close()
			logs = f
		}
		if *load > 0 {
			return runLoad(ctx, *load, *ddbNice, limit, *updateLimit, logs, stdout)
		}
		return runDemo(ctx, logs, stdout)
	}
	cfg, err := product.config(getenv, *logPath)
	if err != nil {
		return err
	}
	return runProduct(ctx, cfg, getenv, stdout)
}

const usage = `Usage: approvals-local [flags]

Runs the product on this machine: the local Step Functions engine (its API on -sfn-addr, for the
AWS CLI, any SDK and your tests: AWS_ENDPOINT_URL_SFN), DynamoDB Local with its data in -data, the
notifier, the approvals bot, and a stand-in for Slack with a web page on -addr. With SLACK_BOT_TOKEN
and SLACK_APP_TOKEN set, the bot and the notifier use your Slack workspace instead (pass -channel and
-approvers). Ctrl-C stops everything.

Flags:
`

func runDemo(ctx context.Context, logs io.Writer, out io.Writer) error {
	fmt.Fprintln(out, "Starting DynamoDB Local, a fake Slack, the Step Functions double and 2 bot replicas…")
	start := time.Now()
	ddb, err := dynamolocal.Start(ctx)
	if err != nil {
		return err
	}
	defer ddb.Close()
	cfg := slackbot.DefaultConfig()
	cfg.SweepInterval = 500 * time.Millisecond
	cfg.SweepGrace = time.Second
	stack, err := devstack.Start(ctx, devstack.Options{
		DynamoDBEndpoint: ddb.Endpoint(),
		Replicas:         2,
		Logs:             logs,
		Slack:            fakeslack.Options{Groups: map[string][]string{editors: {carol}}},
		Bot:              cfg,
	})
	if err != nil {
		return err
	}
	defer stack.Close()
	fmt.Fprintf(out, "Ready in %s (table %s).\n", time.Since(start).Round(10*time.Millisecond), stack.Table)
	fmt.Fprintln(out, "\n── Act 1: every kind of decision, on executions paused by the Step Functions callback double ──")
	if err := (&demo{stack: stack, out: out}).play(ctx); err != nil {
		return err
	}
	stack.Close()
	return playWorkflow(ctx, ddb.Endpoint(), logs, out)
}
