package main

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"

	"go.uber.org/zap/zapcore"

	"github.com/sfnapprovals/approvals/internal/awslocal"
	"github.com/sfnapprovals/approvals/internal/logging"
)

// config is everything the notifier reads from its environment, read once
// at start and validated before anything connects. AWS settings (region,
// credentials, endpoints) are resolved by the AWS SDK itself.
type config struct {
	// BotToken (SLACK_BOT_TOKEN, for local use) or SecretARN
	// (SLACK_SECRET_ARN: the Secrets Manager secret holding it, read at
	// start) is set, never both.
	BotToken  string
	SecretARN string
	APIURL    string
	Table     string
	Retention time.Duration
	LogLevel  zapcore.Level
	// LocalDynamoDB is set when the DynamoDB endpoint override points at
	// this machine (DynamoDB Local), whose responses fail checksum checks.
	LocalDynamoDB bool
}

const defaultAPIURL = "https://slack.com/api/"

func loadConfig(getenv func(string) string) (config, error) {
	c := config{
		BotToken:  getenv("SLACK_BOT_TOKEN"),
		APIURL:    getenv("SLACK_API_URL"),
		Table:     getenv("APPROVALS_TABLE"),
		Retention: 90 * 24 * time.Hour,
	}
	c.SecretARN = getenv("SLACK_SECRET_ARN")
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
		c.APIURL = defaultAPIURL
	}
	if u, err := url.Parse(c.APIURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || !strings.HasSuffix(c.APIURL, "/") {
		return c, fmt.Errorf("SLACK_API_URL must be an http(s) URL ending with a slash, like %s", defaultAPIURL)
	}
	if v := getenv("APPROVALS_RETENTION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Hour {
			return c, fmt.Errorf("APPROVALS_RETENTION must be a duration of at least 1h such as 2160h, not %q", v)
		}
		c.Retention = d
	}
	if v := getenv("LOG_LEVEL"); v != "" {
		level, err := logging.ParseLevel(v)
		if err != nil {
			return c, err
		}
		c.LogLevel = level
	}
	endpoint := getenv("AWS_ENDPOINT_URL_DYNAMODB")
	if endpoint == "" {
		endpoint = getenv("AWS_ENDPOINT_URL")
	}
	c.LocalDynamoDB = awslocal.IsLoopback(endpoint)
	return c, nil
}
