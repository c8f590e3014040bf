// Package lambdaenv is what the project's Lambda functions (cmd/notifier
// and cmd/approvals-events) share: the environment both read once, at cold
// start, and validate before anything connects, and the clients built from
// it (DynamoDB, and the Slack poster that reads the bot token from Secrets
// Manager and again when Slack refuses it).
package lambdaenv

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/slack-go/slack"
	"go.uber.org/zap/zapcore"

	"github.com/sfnapprovals/approvals/internal/awslocal"
	"github.com/sfnapprovals/approvals/internal/logging"
	"github.com/sfnapprovals/approvals/internal/slacksecret"
	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/workflow"
)

var _ chat.TokenSource = (*slacksecret.Source)(nil)

// DefaultAPIURL is Slack's Web API, SLACK_API_URL's default.
const DefaultAPIURL = "https://slack.com/api/"

// OutboundTimeout bounds each HTTP call to Slack and AWS; the Lambda
// deadline bounds the whole invocation.
const OutboundTimeout = 10 * time.Second

// Config is the environment every Lambda function of the project reads.
// AWS settings (region, credentials, endpoints) are the AWS SDK's own.
type Config struct {
	// BotToken (SLACK_BOT_TOKEN, for local use) or SecretARN
	// (SLACK_SECRET_ARN: the Secrets Manager secret whose JSON key botToken
	// holds it) is set, never both.
	BotToken  string
	SecretARN string
	APIURL    string // SLACK_API_URL
	Table     string // APPROVALS_TABLE
	LogLevel  zapcore.Level
	// LocalDynamoDB is set when the DynamoDB endpoint override points at
	// this machine (DynamoDB Local), whose responses fail checksum checks.
	LocalDynamoDB bool
	// AuditRetention (APPROVALS_AUDIT_RETENTION, as the bot reads it) is
	// how long the audit records the function writes with its changes are
	// kept.
	AuditRetention time.Duration
}

// Load reads and checks the environment. Each error is one line naming
// the variable, and never quotes a token.
func Load(getenv func(string) string) (Config, error) {
	c := Config{
		BotToken:  getenv("SLACK_BOT_TOKEN"),
		SecretARN: getenv("SLACK_SECRET_ARN"),
		APIURL:    getenv("SLACK_API_URL"),
		Table:     getenv("APPROVALS_TABLE"),

		AuditRetention: workflow.DefaultAuditRetention,
	}
	switch {
	case c.BotToken != "" && c.SecretARN != "":
		return c, fmt.Errorf("set SLACK_SECRET_ARN (the Secrets Manager secret with the bot token) or SLACK_BOT_TOKEN (local use), not both")
	case c.BotToken == "" && c.SecretARN == "":
		return c, fmt.Errorf("SLACK_SECRET_ARN or SLACK_BOT_TOKEN is required: the Secrets Manager secret holding the bot token (JSON key botToken), or the bot token (xoxb-…)")
	case c.SecretARN != "" && strings.ContainsFunc(c.SecretARN, unicode.IsSpace):
		return c, fmt.Errorf("SLACK_SECRET_ARN must be a secret's ARN or name, without spaces")
	case c.SecretARN == "" && !strings.HasPrefix(c.BotToken, "xoxb-"):
		return c, fmt.Errorf("SLACK_BOT_TOKEN must be a bot token starting with xoxb-")
	case c.Table == "":
		return c, fmt.Errorf("APPROVALS_TABLE is required: the DynamoDB table name")
	}
	if c.APIURL == "" {
		c.APIURL = DefaultAPIURL
	}
	if u, err := url.Parse(c.APIURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || !strings.HasSuffix(c.APIURL, "/") {
		return c, fmt.Errorf("SLACK_API_URL must be an http(s) URL ending with a slash, like %s", DefaultAPIURL)
	}
	if v := getenv("LOG_LEVEL"); v != "" {
		level, err := logging.ParseLevel(v)
		if err != nil {
			return c, err
		}
		c.LogLevel = level
	}
	if v := getenv("APPROVALS_AUDIT_RETENTION"); v != "" {
		d, err := retention(v)
		if err != nil || d < 24*time.Hour {
			return c, fmt.Errorf("APPROVALS_AUDIT_RETENTION must be a number of days such as 400d, or a duration of at least 24h such as 9600h, not %q", v)
		}
		c.AuditRetention = d
	}
	endpoint := getenv("AWS_ENDPOINT_URL_DYNAMODB")
	if endpoint == "" {
		endpoint = getenv("AWS_ENDPOINT_URL")
	}
	c.LocalDynamoDB = awslocal.IsLoopback(endpoint)
	return c, nil
}

// AWS loads the AWS SDK's configuration, every call bounded by
// OutboundTimeout.
func AWS(ctx context.Context) (aws.Config, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx,
		awsconfig.WithHTTPClient(awshttp.NewBuildableClient().WithTimeout(OutboundTimeout)))
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS configuration: %w", err)
	}
	return cfg, nil
}

// retention reads "400d" as 400 days, or a Go duration.
func retention(v string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(v, "d"); ok {
		d, err := strconv.Atoi(n)
		if err != nil || d < 0 || d > 100*366 {
			return 0, fmt.Errorf("not a number of days: %q", v)
		}
		return time.Duration(d) * 24 * time.Hour, nil
	}
	return time.ParseDuration(v)
}

// DynamoDB is the client of the approvals table.
func (c Config) DynamoDB(awsCfg aws.Config) *dynamodb.Client {
	return dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) {
		o.DisableValidateResponseChecksum = c.LocalDynamoDB
	})
}

// Poster is the Slack poster with the bot token: from the secret, read now
// (the only network call a cold start makes), or from the environment.
func (c Config) Poster(ctx context.Context, awsCfg aws.Config) (*chat.TokenPoster, error) {
	var source chat.TokenSource = chat.StaticToken(c.BotToken)
	if c.SecretARN != "" {
		source = slacksecret.New(secretsmanager.NewFromConfig(awsCfg), c.SecretARN)
	}
	return chat.NewTokenPoster(ctx, source, func(token string) *chat.Poster {
		return chat.NewPoster(slack.New(token,
			slack.OptionAPIURL(c.APIURL),
			slack.OptionHTTPClient(&http.Client{Timeout: OutboundTimeout})))
	})
}
