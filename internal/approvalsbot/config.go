// Package approvalsbot is the approvals-bot process as a library: its
// configuration from the environment, the wiring of the DynamoDB store,
// Step Functions, the Slack client and its metrics into the bot, and the
// operations server (/healthz, /readyz, /metrics). cmd/approvals-bot runs
// it from its environment; cmd/approvals-local runs the same code in
// process against the local parts, so the local product runs the bot that
// is deployed.
package approvalsbot

import (
	"cmp"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap/zapcore"

	"github.com/sfnapprovals/approvals/internal/awslocal"
	"github.com/sfnapprovals/approvals/internal/logging"
	"github.com/sfnapprovals/approvals/slackbot"
	"github.com/sfnapprovals/approvals/workflow"
)

// Config is everything the bot reads from its environment, read once at
// start and validated before anything connects (LoadConfig).
type Config struct {
	BotToken string
	AppToken string
	APIURL   string
	Table    string

	Workers int
	// UpdatesPerMinute is the ceiling of chat.update calls per replica; 0
	// (unset) means none: the bot follows Slack's answers alone.
	UpdatesPerMinute int
	SweepInterval    time.Duration
	// ClaimLease is how long a recorded decision is trusted to be resumed
	// by the replica that recorded it before another replica's sweep
	// resumes it (workflow.Service.ClaimLease).
	ClaimLease      time.Duration
	GroupStaleGrace time.Duration
	// ExecutionChecks is how many executions a sweep may ask Step
	// Functions about (DescribeExecution); 0 turns the checks off.
	ExecutionChecks int
	LogLevel        zapcore.Level
	// HTTPAddr is where /healthz, /readyz and /metrics are served.
	HTTPAddr string

	// DynamoDBEndpoint and SFNEndpoint, when set, are the endpoints of
	// DynamoDB and Step Functions, whatever the AWS configuration says;
	// empty leaves them to the AWS SDK (AWS_ENDPOINT_URL_DYNAMODB, …).
	DynamoDBEndpoint, SFNEndpoint string
	// LocalDynamoDB is set when DynamoDB is DynamoDB Local on this
	// machine, whose answers fail the SDK's checksum checks.
	LocalDynamoDB bool
	// AuditRetention is how long each audit record is kept.
	AuditRetention time.Duration
	// Locale (APPROVALS_LOCALE) is the language of what the bot writes
	// outside a request: /approvals, the App Home, early answers.
	Locale string
}

const (
	// DefaultAPIURL is Slack's Web API.
	DefaultAPIURL = "https://slack.com/api/"
	// DefaultHTTPAddr is APPROVALS_HTTP_ADDR's default.
	DefaultHTTPAddr = ":8080"
)

// HTTPAddr reads APPROVALS_HTTP_ADDR: host:port or :port.
func HTTPAddr(getenv func(string) string) (string, error) {
	v := getenv("APPROVALS_HTTP_ADDR")
	if v == "" {
		return DefaultHTTPAddr, nil
	}
	_, port, err := net.SplitHostPort(v)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("APPROVALS_HTTP_ADDR must be host:port or :port, such as %s or 127.0.0.1:9090, not %q", DefaultHTTPAddr, v)
	}
	return v, nil
}

// LoadConfig reads the configuration. With tableOnly (for -create-table)
// the Slack tokens are not required. An error is one line naming the
// variable, without its value when that may be a token.
func LoadConfig(getenv func(string) string, tableOnly bool) (Config, error) {
	defaults := slackbot.DefaultConfig()
	c := Config{
		BotToken:        getenv("SLACK_BOT_TOKEN"),
		AppToken:        getenv("SLACK_APP_TOKEN"),
		APIURL:          getenv("SLACK_API_URL"),
		Table:           getenv("APPROVALS_TABLE"),
		Workers:         defaults.Workers,
		SweepInterval:   defaults.SweepInterval,
		ClaimLease:      workflow.DefaultClaimLease,
		GroupStaleGrace: slackbot.DefaultStaleGrace,
		ExecutionChecks: workflow.DefaultExecutionChecks.PerRun,
		LogLevel:        zapcore.InfoLevel,
		AuditRetention:  workflow.DefaultAuditRetention,
	}
	if c.Table == "" {
		return c, fmt.Errorf("APPROVALS_TABLE is required: the DynamoDB table name")
	}
	var err error
	if c.HTTPAddr, err = HTTPAddr(getenv); err != nil {
		return c, err
	}
	c.LocalDynamoDB = awslocal.IsLoopback(cmp.Or(getenv("AWS_ENDPOINT_URL_DYNAMODB"), getenv("AWS_ENDPOINT_URL")))
	if v := getenv("LOG_LEVEL"); v != "" {
		level, err := logging.ParseLevel(v)
		if err != nil {
			return c, err
		}
		c.LogLevel = level
	}
	if tableOnly {
		return c, nil
	}
	switch {
	case c.BotToken == "":
		return c, fmt.Errorf("SLACK_BOT_TOKEN is required: the bot token (xoxb-…)")
	case !strings.HasPrefix(c.BotToken, "xoxb-"):
		return c, fmt.Errorf("SLACK_BOT_TOKEN must be a bot token starting with xoxb-")
	case c.AppToken == "":
		return c, fmt.Errorf("SLACK_APP_TOKEN is required: an app-level token (xapp-…) with connections:write")
	case !strings.HasPrefix(c.AppToken, "xapp-"):
		return c, fmt.Errorf("SLACK_APP_TOKEN must be an app-level token starting with xapp-")
	}
	if c.APIURL == "" {
		c.APIURL = DefaultAPIURL
	}
	if !strings.HasSuffix(c.APIURL, "/") {
		return c, fmt.Errorf("SLACK_API_URL must end with a slash, like %s", DefaultAPIURL)
	}
	if c.Locale, err = workflow.LocaleVar(getenv); err != nil {
		return c, err
	}
	if c.Workers, err = intVar(getenv, "APPROVALS_WORKERS", c.Workers, 1, 256); err != nil {
		return c, err
	}
	if c.UpdatesPerMinute, err = intVar(getenv, "APPROVALS_SLACK_UPDATES_PER_MINUTE", c.UpdatesPerMinute, 1, 6000); err != nil {
		return c, err
	}
	if c.SweepInterval, err = durationVar(getenv, "APPROVALS_SWEEP_INTERVAL", c.SweepInterval, time.Second); err != nil {
		return c, err
	}
	if c.ClaimLease, err = durationVar(getenv, "APPROVALS_CLAIM_LEASE", c.ClaimLease, workflow.MinClaimLease); err != nil {
		return c, err
	}
	if c.ExecutionChecks, err = intVar(getenv, "APPROVALS_EXECUTION_CHECKS", c.ExecutionChecks, 0, 100); err != nil {
		return c, err
	}
	if v := getenv("APPROVALS_AUDIT_RETENTION"); v != "" {
		if c.AuditRetention, err = days(v); err != nil || c.AuditRetention < 24*time.Hour {
			return c, fmt.Errorf("APPROVALS_AUDIT_RETENTION must be a number of days such as 400d, or a duration of at least 24h such as 9600h, not %q", v)
		}
	}
	if v := getenv("APPROVALS_GROUP_STALE_GRACE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > slackbot.MaxStaleGrace {
			return c, fmt.Errorf("APPROVALS_GROUP_STALE_GRACE must be a duration from 0s to %s such as 2m, not %q", slackbot.MaxStaleGrace, v)
		}
		c.GroupStaleGrace = d
	}
	return c, nil
}

// days reads "400d" as 400 days, or a Go duration.
func days(v string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(v, "d"); ok {
		d, err := strconv.Atoi(n)
		if err != nil || d < 0 || d > 100*366 {
			return 0, fmt.Errorf("not a number of days: %q", v)
		}
		return time.Duration(d) * 24 * time.Hour, nil
	}
	return time.ParseDuration(v)
}

func intVar(getenv func(string) string, name string, def, min, max int) (int, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > max {
		return 0, fmt.Errorf("%s must be a whole number from %d to %d, not %q", name, min, max, v)
	}
	return n, nil
}

func durationVar(getenv func(string) string, name string, def, min time.Duration) (time.Duration, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < min {
		return 0, fmt.Errorf("%s must be a duration of at least %s such as 30s or 2h, not %q", name, min, v)
	}
	return d, nil
}
