// Command approvals-events is the Lambda function an EventBridge rule
// invokes with Step Functions execution status change events: when an
// execution ends (SUCCEEDED, FAILED, TIMED_OUT, ABORTED) it closes the
// approval requests still open for it and updates their Slack messages
// (see lambdas/events), serving the Lambda Runtime API named by
// AWS_LAMBDA_RUNTIME_API.
//
// Build it for the provided.al2023 runtime:
//
//	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build -tags lambda.norpc -trimpath -o bootstrap ./cmd/approvals-events
//
// It logs to stderr and writes the CloudWatch Embedded Metric Format lines
// of each invocation to stdout (namespace SlackApprovals, dimension
// Function; see lambdas/events).
//
// Environment: SLACK_SECRET_ARN (deployed: the Secrets Manager secret
// whose JSON key botToken is read at cold start, and again when Slack
// refuses the token) or SLACK_BOT_TOKEN (local use), APPROVALS_TABLE,
// SLACK_API_URL, LOG_LEVEL, and the AWS SDK's own variables (AWS_REGION,
// AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SECRETS_MANAGER, …). It
// calls DynamoDB (GetItem, PutItem, and Query on the execution index) and
// Secrets Manager (GetSecretValue); never Step Functions.
package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/aws/aws-lambda-go/lambda"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/emf"
	"github.com/sfnapprovals/approvals/internal/lambdaenv"
	"github.com/sfnapprovals/approvals/internal/logging"
	"github.com/sfnapprovals/approvals/lambdas/events"
	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
)

// The handler is served as a raw lambda.Handler, so an event that is not
// JSON still reaches it (and is acknowledged).
var (
	_ lambda.Handler = (*events.Handler)(nil)
	_ events.Poster  = (*chat.TokenPoster)(nil)
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "approvals-events: %v\n", err)
		os.Exit(1)
	}
}

// run configures the function and serves invocations. Log lines go to
// stderr, the EMF lines of each invocation to stdout. It returns only when
// the configuration is wrong or the bot token cannot be read; once
// serving, aws-lambda-go exits the process itself if the Runtime API
// fails.
func run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	handler, err := newHandler(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	handler.Metrics = emf.New(stdout, emf.Namespace, emf.Dimension{Name: "Function", Value: cmp.Or(getenv("AWS_LAMBDA_FUNCTION_NAME"), "approvals-events")})
	lambda.StartWithOptions(handler, lambda.WithContext(ctx))
	return nil
}

// newHandler wires the DynamoDB store and the Slack poster into the
// handler. Its only network call reads the bot token from Secrets Manager,
// when SLACK_SECRET_ARN names it.
func newHandler(ctx context.Context, cfg config, stderr io.Writer) (*events.Handler, error) {
	logger := logging.New(stderr, cfg.LogLevel)
	awsCfg, err := lambdaenv.AWS(ctx)
	if err != nil {
		return nil, err
	}
	service := workflow.NewService(dynamo.New(cfg.DynamoDB(awsCfg), cfg.Table, dynamo.AuditRetention(cfg.AuditRetention)), nil, nil)
	poster, err := cfg.Poster(ctx, awsCfg)
	if err != nil {
		return nil, err
	}
	logger.Info("approvals-events ready", zap.String("table", cfg.Table), zap.String("slack_api_url", cfg.APIURL))
	return events.New(service, poster, logger), nil
}
