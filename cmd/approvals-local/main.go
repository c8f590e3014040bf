// Command approvals-local runs the product on local parts — DynamoDB Local,
// a fake Slack, two bot replicas and the notifier, with executions paused
// by the Step Functions callback double (act 1) and then a shipped state
// machine on the local Step Functions engine (act 2) — printing what Slack
// shows and what each execution receives. With -load N it runs the load
// benchmark instead. No AWS account or Slack workspace is needed.
package main

import (
	"context"
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
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
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

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("approvals-local", flag.ContinueOnError)
	flags.SetOutput(stderr)
	load := flags.Int("load", 0, "run the load benchmark with this many approvals and clicks instead of the demo")
	logPath := flags.String("logs", "", "write every component's JSON logs to this file")
	ddbNice := flags.Int("ddb-nice", 15, "with -load: CPU priority (nice) of DynamoDB Local, which stands in for a service on other machines; 0 for equal priority")
	updateLimit := flags.String("slack-update-limit", "20/s,burst=20", "with -load: how the fake Slack limits chat.update, in minute windows with a burst allowance: N/s or N/min, optionally ,burst=B (50/min is Slack's Tier 3)")
	if err := flags.Parse(args); err != nil {
		return err
	}
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
