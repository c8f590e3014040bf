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
// Environment: SLACK_BOT_TOKEN and APPROVALS_TABLE (required),
// SLACK_API_URL, LOG_LEVEL, and the AWS SDK's own variables (AWS_REGION,
// AWS_ENDPOINT_URL_DYNAMODB, …). It calls DynamoDB only (GetItem, PutItem,
// and Query on the execution index); never Step Functions.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/logging"
	"github.com/sfnapprovals/approvals/lambdas/events"
	"github.com/sfnapprovals/approvals/slackbot"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
)

// The handler is served as a raw lambda.Handler, so an event that is not
// JSON still reaches it (and is acknowledged).
var (
	_ lambda.Handler = (*events.Handler)(nil)
	_ events.Poster  = (*slackbot.Poster)(nil)
)

// outboundTimeout bounds each HTTP call to Slack and DynamoDB; the Lambda
// deadline bounds the whole invocation.
const outboundTimeout = 10 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "approvals-events: %v\n", err)
		os.Exit(1)
	}
}

// run configures the function and serves invocations. It returns only when
// the configuration is wrong; once serving, aws-lambda-go exits the process
// itself if the Runtime API fails.
func run(ctx context.Context, getenv func(string) string, stderr io.Writer) error {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	handler, err := newHandler(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	lambda.StartWithOptions(handler, lambda.WithContext(ctx))
	return nil
}

// newHandler wires the DynamoDB store and the Slack poster into the
// handler. It makes no network calls.
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
	api := slack.New(cfg.BotToken,
		slack.OptionAPIURL(cfg.APIURL),
		slack.OptionHTTPClient(&http.Client{Timeout: outboundTimeout}))
	logger.Info("approvals-events ready", zap.String("table", cfg.Table), zap.String("slack_api_url", cfg.APIURL))
	return events.New(service, slackbot.NewPoster(api), logger), nil
}
