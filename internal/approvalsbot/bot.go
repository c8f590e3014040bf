package approvalsbot

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/awslocal"
	"github.com/sfnapprovals/approvals/internal/metrics"
	"github.com/sfnapprovals/approvals/slackbot"
	"github.com/sfnapprovals/approvals/slackbot/pacing"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions"
)

// opsStopTimeout bounds how long requests to the operations server may
// finish once the bot stopped.
const opsStopTimeout = time.Second

// DynamoDB returns the DynamoDB client the configuration describes, with
// opts applied after it.
func (c Config) DynamoDB(awsCfg aws.Config, opts ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.NewFromConfig(awsCfg, append([]func(*dynamodb.Options){func(o *dynamodb.Options) {
		if c.DynamoDBEndpoint != "" {
			o.BaseEndpoint = aws.String(c.DynamoDBEndpoint)
		}
		// DynamoDB Local answers conditional-check failures without the
		// CRC32 the SDK expects.
		if c.LocalDynamoDB || awslocal.IsLoopback(c.DynamoDBEndpoint) {
			o.DisableValidateResponseChecksum = true
		}
	}}, opts...)...)
}

// Store returns the approvals store and the audit trail the configuration
// describes, on client: records in the approvals table, audit records kept
// AuditRetention.
func (c Config) Store(client *dynamodb.Client) (*dynamo.Store, *dynamo.AuditLog) {
	return dynamo.New(client, c.Table, dynamo.AuditRetention(c.AuditRetention)), dynamo.NewAuditLog(client, c.Table, c.AuditRetention)
}

// stepFunctions is the Step Functions client the configuration describes.
// It opens at most Workers connections at once (the other calls wait for
// one): a burst's resumes run claimWorkers times as wide as Workers (see
// slackbot), and each call beyond that would open a connection of its own
// — a TLS handshake each against Step Functions — only to close it after.
func (c Config) stepFunctions(awsCfg aws.Config) *sfn.Client {
	return sfn.NewFromConfig(awsCfg, func(o *sfn.Options) {
		if c.SFNEndpoint != "" {
			o.BaseEndpoint = aws.String(c.SFNEndpoint)
		}
		if b, ok := o.HTTPClient.(*awshttp.BuildableClient); ok && c.Workers > 0 {
			o.HTTPClient = b.WithTransportOptions(func(t *http.Transport) { t.MaxConnsPerHost = c.Workers })
		}
	})
}

// Bot is a running approvals bot with its operations server.
type Bot struct {
	ops  *opsServer
	bot  *slackbot.Bot
	done chan error
	log  *zap.Logger
}

// Start wires the bot and starts it: the operations server listens on ln
// (nil: on cfg.HTTPAddr, so a taken port fails here), then the bot
// connects to Slack and serves until ctx ends, when it drains its work
// (see slackbot.Bot.Run). Wait returns what it ended with.
func Start(ctx context.Context, cfg Config, awsCfg aws.Config, ln net.Listener, logger *zap.Logger) (*Bot, error) {
	registry := metrics.NewRegistry()
	calls := &dynamo.Calls{}
	if err := registry.Register(metrics.NewGoMetrics(), metrics.NewProcessMetrics(), dynamoCalls(calls)); err != nil {
		return nil, fmt.Errorf("register metrics: %w", err)
	}
	botMetrics, err := slackbot.NewMetrics(registry)
	if err != nil {
		return nil, fmt.Errorf("register metrics: %w", err)
	}
	httpClient := slackbot.NewHTTPClient(10 * time.Second)
	httpClient.Transport = botMetrics.SlackTransport(httpClient.Transport)
	api := slack.New(cfg.BotToken,
		slack.OptionAppLevelToken(cfg.AppToken),
		slack.OptionAPIURL(cfg.APIURL),
		slack.OptionHTTPClient(httpClient),
	)
	sfnClient := cfg.stepFunctions(awsCfg)
	store, audit := cfg.Store(cfg.DynamoDB(awsCfg, calls.Option))
	svc := workflow.NewService(
		store,
		stepfunctions.New(sfnClient),
		slackbot.NewDirectory(api, slackbot.DefaultDirectoryTTL, slackbot.DirectoryStaleGrace(cfg.GroupStaleGrace)),
	)
	svc.ClaimLease = cfg.ClaimLease
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
		botCfg.UpdateRate = pacing.Rate{Events: cfg.UpdatesPerMinute, Per: time.Minute, Burst: min(20, cfg.UpdatesPerMinute)}
	}
	botCfg.Metrics = botMetrics
	botCfg.Locale = cfg.Locale
	b := &Bot{bot: slackbot.New(botCfg, svc, api, logger), done: make(chan error, 1), log: logger}
	routes := opsRoutes(b.bot.Ready, registry)
	if ln == nil {
		if b.ops, err = startOps(cfg.HTTPAddr, routes, logger); err != nil {
			return nil, err
		}
	} else {
		b.ops = serveOps(ln, routes, logger)
	}
	logger.Info("starting", zap.String("table", cfg.Table), zap.Int("workers", cfg.Workers))
	go func() { b.done <- b.run(ctx) }()
	go migrate(ctx, store, logger)
	return b, nil
}

func (b *Bot) run(ctx context.Context) error {
	err := b.bot.Run(ctx)
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	if serr := b.ops.stop(opsStopTimeout); serr != nil {
		b.log.Warn("http server did not stop cleanly", zap.Error(serr))
	}
	b.log.Info("stopped")
	return err
}

// HTTPAddr is where the operations server listens.
func (b *Bot) HTTPAddr() net.Addr { return b.ops.addr }

// Ready is nil when /readyz would answer ready, else why not.
func (b *Bot) Ready() error { return b.bot.Ready() }

// Wait waits until the bot stopped (its context ended and its work
// drained, or Slack refused it) and returns why: nil after the context
// ended.
func (b *Bot) Wait() error {
	err := <-b.done
	b.done <- err
	return err
}

// dynamoCalls exposes the DynamoDB calls the bot made, by operation.
func dynamoCalls(calls *dynamo.Calls) metrics.Family {
	return metrics.NewCounterFuncVec("approvals_dynamodb_calls_total",
		"DynamoDB calls the replica made, by operation (GetItem, TransactWriteItems, Query, …): one per API call, however many attempts its retries took.",
		"operation", func() map[string]float64 {
			out := map[string]float64{}
			for op, n := range calls.Counts() {
				out[op] = float64(n)
			}
			return out
		})
}

// migrate brings the records an older version stored up to this one
// (dynamo.Store.Migrate): once per table, in the background.
func migrate(ctx context.Context, store *dynamo.Store, log *zap.Logger) {
	n, err := store.Migrate(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		log.Warn("records of an older version not migrated; the next start tries again", zap.Error(err))
	case n > 0:
		log.Info("records of an older version migrated", zap.Int("approvals", n))
	}
}
