// Command notifier is the Lambda function a state machine invokes with
// arn:aws:states:::lambda:invoke.waitForTaskToken. It stores the approval in
// DynamoDB and posts it to Slack (see lambdas/notifier), serving the Lambda
// Runtime API named by AWS_LAMBDA_RUNTIME_API.
//
// Build it for the provided.al2023 runtime:
//
//	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build -tags lambda.norpc -trimpath -o bootstrap ./cmd/notifier
//
// It logs to stderr and writes one CloudWatch Embedded Metric Format line
// per invocation to stdout (namespace SlackApprovals, dimension Function).
//
// Environment: SLACK_SECRET_ARN (deployed: the Secrets Manager secret
// whose JSON key botToken is read at cold start, and again when Slack
// refuses the token) or SLACK_BOT_TOKEN (local use), APPROVALS_TABLE,
// SLACK_API_URL, APPROVALS_RETENTION, LOG_LEVEL, and the AWS SDK's own
// variables (AWS_REGION, AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SFN,
// AWS_ENDPOINT_URL_SECRETS_MANAGER, …). It calls Step Functions only for
// SendTaskHeartbeat, to tell whether an older request of the same
// execution and state still waits.
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
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/emf"
	"github.com/sfnapprovals/approvals/internal/lambdaenv"
	"github.com/sfnapprovals/approvals/internal/logging"
	"github.com/sfnapprovals/approvals/lambdas/notifier"
	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions"
)

// The handler is served as a raw lambda.Handler, so a payload that is not
// JSON still reaches it (and fails as InvalidApprovalRequest).
var (
	_ lambda.Handler  = (*notifier.Handler)(nil)
	_ notifier.Poster = (*chat.TokenPoster)(nil)
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "notifier: %v\n", err)
		os.Exit(1)
	}
}

// run configures the notifier and serves invocations. Log lines go to
// stderr, one CloudWatch EMF line per invocation to stdout. It returns only
// when the configuration is wrong; once serving, aws-lambda-go exits the
// process itself if the Runtime API fails.
func run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	handler, err := newHandler(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	handler.Metrics = emf.New(stdout, emf.Namespace, emf.Dimension{Name: "Function", Value: cmp.Or(getenv("AWS_LAMBDA_FUNCTION_NAME"), "notifier")})
	lambda.StartWithOptions(handler, lambda.WithContext(ctx))
	return nil
}

// newHandler wires the DynamoDB store, the Step Functions client and the
// Slack poster into the notifier handler. Its only network call reads the
// bot token from Secrets Manager, when SLACK_SECRET_ARN names it.
func newHandler(ctx context.Context, cfg config, stderr io.Writer) (*notifier.Handler, error) {
	logger := logging.New(stderr, cfg.LogLevel)
	awsCfg, err := lambdaenv.AWS(ctx)
	if err != nil {
		return nil, err
	}
	// The resumer only answers whether an older request's task still
	// waits (SendTaskHeartbeat); the notifier resumes nothing.
	resumer := stepfunctions.New(sfn.NewFromConfig(awsCfg))
	service := workflow.NewService(dynamo.New(cfg.DynamoDB(awsCfg), cfg.Table), resumer, nil)
	service.Retention = cfg.Retention
	poster, err := cfg.Poster(ctx, awsCfg)
	if err != nil {
		return nil, err
	}
	logger.Info("notifier ready", zap.String("table", cfg.Table), zap.String("slack_api_url", cfg.APIURL), zap.String("locale", cfg.Locale))
	h := notifier.New(service, poster, logger)
	h.Locale = cfg.Locale
	return h, nil
}
