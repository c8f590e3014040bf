// Command approvals-bot is the long-running Socket Mode bot: it receives
// Slack clicks and modal submissions, decides approvals exactly once and
// resumes the waiting Step Functions executions. It serves /healthz,
// /readyz and /metrics (Prometheus) on APPROVALS_HTTP_ADDR. With
// -create-table it creates the DynamoDB table and exits; with
// -export-audit -since T [-until T] it writes the audit events of that
// time range to stdout as JSON lines, in time order, and exits; with -healthcheck
// it asks the bot running in the same container whether it is ready and
// exits 0 (ready) or 1, for a container health check without a shell.
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

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/approvalsbot"
	"github.com/sfnapprovals/approvals/internal/logging"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "approvals-bot:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("approvals-bot", flag.ContinueOnError)
	flags.SetOutput(stderr)
	createTable := flags.Bool("create-table", false, "create the DynamoDB table (index, TTL) if missing, then exit")
	probe := flags.Bool("healthcheck", false, "ask the bot on APPROVALS_HTTP_ADDR's port whether it is ready; exit 0 if so, else 1")
	export := flags.Bool("export-audit", false, "write the audit events from -since to -until to stdout as JSON lines, in time order, then exit")
	since := flags.String("since", "", "with -export-audit: the first time exported, RFC 3339 (such as 2026-11-01T00:00:00Z)")
	until := flags.String("until", "", "with -export-audit: the time the export ends before, RFC 3339 (default: now)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if (*since != "" || *until != "") && !*export {
		return fmt.Errorf("-since and -until go with -export-audit")
	}
	if *probe {
		addr, err := approvalsbot.HTTPAddr(getenv)
		if err == nil {
			err = healthcheck(ctx, addr)
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "ready")
		return nil
	}
	var from, to time.Time
	if *export {
		var err error
		if from, to, err = exportRange(*since, *until, time.Now()); err != nil {
			return err
		}
	}
	cfg, err := approvalsbot.LoadConfig(getenv, *createTable || *export)
	if err != nil {
		return err
	}
	logger := logging.New(stderr, cfg.LogLevel).With(zap.String("service", "approvals-bot"))
	defer func() { _ = logger.Sync() }()

	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return fmt.Errorf("load AWS configuration: %w", err)
	}
	if *createTable {
		if err := dynamo.CreateTable(ctx, cfg.DynamoDB(awsCfg), cfg.Table); err != nil {
			return fmt.Errorf("create table %s: %w", cfg.Table, err)
		}
		logger.Info("table ready", zap.String("table", cfg.Table))
		return nil
	}
	if *export {
		store, audit := cfg.Store(cfg.DynamoDB(awsCfg))
		svc := workflow.NewService(store, nil, nil)
		svc.Audit = audit
		n, err := exportAudit(ctx, svc, from, to, stdout)
		if err != nil {
			return err
		}
		logger.Info("audit exported", zap.Int("events", n), zap.Time("since", from), zap.Time("until", to))
		return nil
	}
	bot, err := approvalsbot.Start(ctx, cfg, awsCfg, nil, logger)
	if err != nil {
		return err
	}
	return bot.Wait()
}
