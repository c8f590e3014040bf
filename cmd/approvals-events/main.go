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
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/emf"
	"github.com/sfnapprovals/approvals/internal/logging"
	"github.com/sfnapprovals/approvals/internal/slacksecret"
	"github.com/sfnapprovals/approvals/lambdas/events"
	"github.com/sfnapprovals/approvals/slackbot"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
)

// The handler is served as a raw lambda.Handler, so an event that is not
// JSON still reaches it (and is acknowledged).
var (
	_ lambda.Handler       = (*events.Handler)(nil)
	_ events.Poster        = (*slackbot.TokenPoster)(nil)
	_ slackbot.TokenSource = (*slacksecret.Source)(nil)
)

// outboundTimeout bounds each HTTP call to Slack and DynamoDB; the Lambda
// deadline bounds the whole invocation.
const outboundTimeout = 10 * time.Second

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
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx,
		awsconfig.WithHTTPClient(awshttp.NewBuildableClient().WithTimeout(outboundTimeout)))
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	db := dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) {
		// DynamoDB Local's responses fail the SDK's checksum validation.
		o.DisableValidateResponseChecksum = cfg.LocalDynamoDB
	})
	service := workflow.NewService(dynamo.New(db, cfg.Table), nil, nil)
	poster, err := slackbot.NewTokenPoster(ctx, tokenSource(cfg, awsCfg), func(token string) *slackbot.Poster {
		return slackbot.NewPoster(slack.New(token,
			slack.OptionAPIURL(cfg.APIURL),
			slack.OptionHTTPClient(&http.Client{Timeout: outboundTimeout})))
	})
	if err != nil {
		return nil, err
	}
	logger.Info("approvals-events ready", zap.String("table", cfg.Table), zap.String("slack_api_url", cfg.APIURL))
	return events.New(service, poster, logger), nil
}

// tokenSource is where the bot token comes from: the secret, or the
// environment.
func tokenSource(cfg config, awsCfg aws.Config) slackbot.TokenSource {
	if cfg.SecretARN != "" {
		return slacksecret.New(secretsmanager.NewFromConfig(awsCfg), cfg.SecretARN)
	}
	return slackbot.StaticToken(cfg.BotToken)
}
