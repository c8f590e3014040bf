package lambdaenv

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func validEnv() map[string]string {
	return map[string]string{"SLACK_BOT_TOKEN": "xoxb-0123-token", "APPROVALS_TABLE": "approvals"}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(map[string]string)
		want Config
	}{
		{"defaults", func(map[string]string) {}, Config{BotToken: "xoxb-0123-token", APIURL: DefaultAPIURL, Table: "approvals", AuditRetention: workflow.DefaultAuditRetention}},
		{"local DynamoDB and fake Slack", func(e map[string]string) {
			e["AWS_ENDPOINT_URL_DYNAMODB"] = "http://127.0.0.1:8000"
			e["SLACK_API_URL"] = "http://127.0.0.1:9000/api/"
			e["LOG_LEVEL"] = "debug"
		}, Config{BotToken: "xoxb-0123-token", APIURL: "http://127.0.0.1:9000/api/", Table: "approvals", LogLevel: -1, LocalDynamoDB: true, AuditRetention: workflow.DefaultAuditRetention}},
		{"general endpoint on localhost", func(e map[string]string) { e["AWS_ENDPOINT_URL"] = "http://localhost:4566" },
			Config{BotToken: "xoxb-0123-token", APIURL: DefaultAPIURL, Table: "approvals", LocalDynamoDB: true, AuditRetention: workflow.DefaultAuditRetention}},
		{"remote endpoint keeps checksums", func(e map[string]string) { e["AWS_ENDPOINT_URL_DYNAMODB"] = "https://dynamodb.eu-west-1.amazonaws.com" },
			Config{BotToken: "xoxb-0123-token", APIURL: DefaultAPIURL, Table: "approvals", AuditRetention: workflow.DefaultAuditRetention}},
		{"the token in a secret", func(e map[string]string) {
			delete(e, "SLACK_BOT_TOKEN")
			e["SLACK_SECRET_ARN"] = "arn:aws:secretsmanager:us-east-1:123456789012:secret:approvals/slack-AbCdEf"
		}, Config{SecretARN: "arn:aws:secretsmanager:us-east-1:123456789012:secret:approvals/slack-AbCdEf", APIURL: DefaultAPIURL, Table: "approvals", AuditRetention: workflow.DefaultAuditRetention}},
		{"audit retention in days", func(e map[string]string) { e["APPROVALS_AUDIT_RETENTION"] = "30d" },
			Config{BotToken: "xoxb-0123-token", APIURL: DefaultAPIURL, Table: "approvals", AuditRetention: 30 * 24 * time.Hour}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := validEnv()
			tt.edit(e)
			got, err := Load(env(e))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadErrorsNameTheVariable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(map[string]string)
		want string
	}{
		{"no bot token", func(e map[string]string) { delete(e, "SLACK_BOT_TOKEN") }, "SLACK_SECRET_ARN or SLACK_BOT_TOKEN is required"},
		{"token and secret", func(e map[string]string) { e["SLACK_SECRET_ARN"] = "approvals/slack" }, "or SLACK_BOT_TOKEN (local use), not both"},
		{"secret with a space", func(e map[string]string) { delete(e, "SLACK_BOT_TOKEN"); e["SLACK_SECRET_ARN"] = "approvals slack" }, "SLACK_SECRET_ARN must be"},
		{"app token as bot token", func(e map[string]string) { e["SLACK_BOT_TOKEN"] = "xapp-0123-token" }, "SLACK_BOT_TOKEN must be a bot token"},
		{"no table", func(e map[string]string) { delete(e, "APPROVALS_TABLE") }, "APPROVALS_TABLE is required"},
		{"API URL without slash", func(e map[string]string) { e["SLACK_API_URL"] = "https://slack.com/api" }, "SLACK_API_URL must be"},
		{"API URL not a URL", func(e map[string]string) { e["SLACK_API_URL"] = "slack.com/api/" }, "SLACK_API_URL must be"},
		{"bad log level", func(e map[string]string) { e["LOG_LEVEL"] = "loud" }, "LOG_LEVEL"},
		{"audit retention under a day", func(e map[string]string) { e["APPROVALS_AUDIT_RETENTION"] = "2h" }, "APPROVALS_AUDIT_RETENTION must be"},
		{"audit retention not a number", func(e map[string]string) { e["APPROVALS_AUDIT_RETENTION"] = "ad" }, "APPROVALS_AUDIT_RETENTION must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := validEnv()
			tt.edit(e)
			_, err := Load(env(e))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load error = %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "0123-token") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is not one token-free line", err)
			}
		})
	}
}
