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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/awslocal"
	"github.com/sfnapprovals/approvals/internal/logging"
	"github.com/sfnapprovals/approvals/slackbot"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions"
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
		addr, err := httpAddr(getenv)
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
	cfg, err := loadConfig(getenv, *createTable || *export)
	if err != nil {
		return err
	}
	logger := logging.New(stderr, cfg.LogLevel).With(zap.String("service", "approvals-bot"))
	defer func() { _ = logger.Sync() }()

	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return fmt.Errorf("load AWS configuration: %w", err)
	}
	ddb := dynamodb.NewFromConfig(awsCfg, awslocal.DynamoDBOptions(getenv))
	if *createTable {
		if err := dynamo.CreateTable(ctx, ddb, cfg.Table); err != nil {
			return fmt.Errorf("create table %s: %w", cfg.Table, err)
		}
		logger.Info("table ready", zap.String("table", cfg.Table))
		return nil
	}
	audit := dynamo.NewAuditLog(ddb, cfg.Table, cfg.AuditRetention)
	if *export {
		svc := workflow.NewService(dynamo.New(ddb, cfg.Table), nil, nil)
		svc.Audit = audit
		n, err := exportAudit(ctx, svc, from, to, stdout)
		if err != nil {
			return err
		}
		logger.Info("audit exported", zap.Int("events", n), zap.Time("since", from), zap.Time("until", to))
		return nil
	}

	registry := prometheus.NewRegistry()
	registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics, err := slackbot.NewMetrics(registry)
	if err != nil {
		return fmt.Errorf("register metrics: %w", err)
	}
	httpClient := slackbot.NewHTTPClient(10 * time.Second)
	httpClient.Transport = metrics.SlackTransport(httpClient.Transport)
	api := slack.New(cfg.BotToken,
		slack.OptionAppLevelToken(cfg.AppToken),
		slack.OptionAPIURL(cfg.APIURL),
		slack.OptionHTTPClient(httpClient),
	)
	sfnClient := sfn.NewFromConfig(awsCfg)
	svc := workflow.NewService(
		dynamo.New(ddb, cfg.Table),
		stepfunctions.New(sfnClient),
		slackbot.NewDirectory(api, slackbot.DefaultDirectoryTTL, slackbot.DirectoryStaleGrace(cfg.GroupStaleGrace)),
	)
	svc.Executions = stepfunctions.NewExecutions(sfnClient)
	svc.ExecutionChecks.PerRun = cfg.ExecutionChecks
	svc.Audit = audit
	svc.OnAuditError = func(a workflow.Approval, err error) {
		msg := err.Error()
		if t := a.TaskToken.Reveal(); t != "" {
			msg = strings.ReplaceAll(msg, t, "[redacted]")
		}
		logger.Warn("audit events not written yet; the sweeper writes them later", zap.String("approval_id", a.ID),
			zap.String("execution_arn", a.ExecutionARN), zap.Int("audit_pending", len(a.AuditOutbox)), zap.String("error", msg))
	}

	botCfg := slackbot.DefaultConfig()
	botCfg.Workers = cfg.Workers
	botCfg.SweepInterval = cfg.SweepInterval
	if cfg.UpdatesPerMinute > 0 {
		botCfg.UpdateRate = slackbot.Rate{Events: cfg.UpdatesPerMinute, Per: time.Minute, Burst: min(20, cfg.UpdatesPerMinute)}
	}
	botCfg.Metrics = metrics
	bot := slackbot.New(botCfg, svc, api, logger)
	ops, err := startOps(cfg.HTTPAddr, opsRoutes(bot.Ready, registry), logger)
	if err != nil {
		return err
	}
	logger.Info("starting", zap.String("table", cfg.Table), zap.Int("workers", cfg.Workers))
	err = bot.Run(ctx)
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	if serr := ops.stop(time.Second); serr != nil {
		logger.Warn("http server did not stop cleanly", zap.Error(serr))
	}
	logger.Info("stopped")
	return err
}
