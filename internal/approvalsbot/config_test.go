package approvalsbot

import (
	"strings"
	"testing"
	"time"
)

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func fullEnv() map[string]string {
	return map[string]string{
		"SLACK_BOT_TOKEN": "xoxb-1-secret",
		"SLACK_APP_TOKEN": "xapp-1-secret",
		"APPROVALS_TABLE": "approvals",
	}
}

func TestLoadConfigDefaults(t *testing.T) {
	t.Parallel()
	c, err := LoadConfig(env(fullEnv()), false)
	if err != nil {
		t.Fatal(err)
	}
	if c.APIURL != "https://slack.com/api/" || c.Workers != 16 || c.SweepInterval != 30*time.Second || c.UpdatesPerMinute != 0 ||
		c.GroupStaleGrace != 2*time.Minute || c.HTTPAddr != ":8080" || c.ExecutionChecks != 10 || c.ClaimLease != time.Minute {
		t.Errorf("defaults = %+v", c)
	}
}

func TestLoadConfigUpdateCeiling(t *testing.T) {
	t.Parallel()
	kv := fullEnv()
	kv["APPROVALS_SLACK_UPDATES_PER_MINUTE"] = "120"
	if c, err := LoadConfig(env(kv), false); err != nil || c.UpdatesPerMinute != 120 {
		t.Errorf("APPROVALS_SLACK_UPDATES_PER_MINUTE=120: %d, %v", c.UpdatesPerMinute, err)
	}
}

func TestLoadConfigGroupStaleGrace(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]time.Duration{"0s": 0, "30s": 30 * time.Second, "5m": 5 * time.Minute} {
		kv := fullEnv()
		kv["APPROVALS_GROUP_STALE_GRACE"] = v
		c, err := LoadConfig(env(kv), false)
		if err != nil || c.GroupStaleGrace != want {
			t.Errorf("APPROVALS_GROUP_STALE_GRACE=%s: %v, %v; want %v", v, c.GroupStaleGrace, err, want)
		}
	}
}

func TestLoadConfigExecutionChecks(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]int{"0": 0, "25": 25, "100": 100} {
		kv := fullEnv()
		kv["APPROVALS_EXECUTION_CHECKS"] = v
		c, err := LoadConfig(env(kv), false)
		if err != nil || c.ExecutionChecks != want {
			t.Errorf("APPROVALS_EXECUTION_CHECKS=%s: %v, %v; want %v", v, c.ExecutionChecks, err, want)
		}
	}
}

func TestLoadConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		set       map[string]string
		unset     string
		tableOnly bool
		want      string
	}{
		{name: "no table", unset: "APPROVALS_TABLE", want: "APPROVALS_TABLE is required"},
		{name: "no table for create", unset: "APPROVALS_TABLE", tableOnly: true, want: "APPROVALS_TABLE is required"},
		{name: "no bot token", unset: "SLACK_BOT_TOKEN", want: "SLACK_BOT_TOKEN is required"},
		{name: "user token", set: map[string]string{"SLACK_BOT_TOKEN": "xoxp-1-secret"}, want: "SLACK_BOT_TOKEN must be a bot token"},
		{name: "no app token", unset: "SLACK_APP_TOKEN", want: "SLACK_APP_TOKEN is required"},
		{name: "bot token as app token", set: map[string]string{"SLACK_APP_TOKEN": "xoxb-1-secret"}, want: "SLACK_APP_TOKEN must be an app-level token"},
		{name: "api url without slash", set: map[string]string{"SLACK_API_URL": "http://127.0.0.1:1/api"}, want: "SLACK_API_URL must end with a slash"},
		{name: "workers", set: map[string]string{"APPROVALS_WORKERS": "0"}, want: "APPROVALS_WORKERS must be a whole number"},
		{name: "update ceiling zero", set: map[string]string{"APPROVALS_SLACK_UPDATES_PER_MINUTE": "0"}, want: "APPROVALS_SLACK_UPDATES_PER_MINUTE must be a whole number from 1 to 6000"},
		{name: "update ceiling word", set: map[string]string{"APPROVALS_SLACK_UPDATES_PER_MINUTE": "fast"}, want: "APPROVALS_SLACK_UPDATES_PER_MINUTE must be a whole number"},
		{name: "sweep", set: map[string]string{"APPROVALS_SWEEP_INTERVAL": "soon"}, want: "APPROVALS_SWEEP_INTERVAL must be a duration"},
		{name: "claim lease", set: map[string]string{"APPROVALS_CLAIM_LEASE": "5s"}, want: "APPROVALS_CLAIM_LEASE must be a duration of at least 10s"},
		{name: "group grace", set: map[string]string{"APPROVALS_GROUP_STALE_GRACE": "a while"}, want: "APPROVALS_GROUP_STALE_GRACE must be a duration"},
		{name: "negative group grace", set: map[string]string{"APPROVALS_GROUP_STALE_GRACE": "-1m"}, want: "APPROVALS_GROUP_STALE_GRACE must be a duration"},
		{name: "long group grace", set: map[string]string{"APPROVALS_GROUP_STALE_GRACE": "15m"}, want: "APPROVALS_GROUP_STALE_GRACE must be a duration from 0s to 5m0s"},
		{name: "execution checks", set: map[string]string{"APPROVALS_EXECUTION_CHECKS": "-1"}, want: "APPROVALS_EXECUTION_CHECKS must be a whole number from 0 to 100"},
		{name: "too many execution checks", set: map[string]string{"APPROVALS_EXECUTION_CHECKS": "500"}, want: "APPROVALS_EXECUTION_CHECKS must be a whole number from 0 to 100"},
		{name: "log level", set: map[string]string{"LOG_LEVEL": "loud"}, want: "LOG_LEVEL"},
		{name: "http addr without colon", set: map[string]string{"APPROVALS_HTTP_ADDR": "8080"}, want: "APPROVALS_HTTP_ADDR must be host:port or :port"},
		{name: "http port too big", set: map[string]string{"APPROVALS_HTTP_ADDR": ":80800"}, want: "APPROVALS_HTTP_ADDR must be"},
		{name: "http port by name", set: map[string]string{"APPROVALS_HTTP_ADDR": "localhost:http"}, want: "APPROVALS_HTTP_ADDR must be"},
		{name: "log level zap knows but we do not document", set: map[string]string{"LOG_LEVEL": "fatal"}, want: "LOG_LEVEL"},
		{name: "log level with -create-table", unset: "SLACK_BOT_TOKEN", set: map[string]string{"LOG_LEVEL": "loud"}, tableOnly: true, want: "LOG_LEVEL"},
		{name: "audit retention word", set: map[string]string{"APPROVALS_AUDIT_RETENTION": "forever"}, want: "APPROVALS_AUDIT_RETENTION must be a number of days such as 400d"},
		{name: "audit retention short", set: map[string]string{"APPROVALS_AUDIT_RETENTION": "5h"}, want: "APPROVALS_AUDIT_RETENTION must be"},
		{name: "audit retention no days", set: map[string]string{"APPROVALS_AUDIT_RETENTION": "0d"}, want: "APPROVALS_AUDIT_RETENTION must be"},
		{name: "audit retention negative", set: map[string]string{"APPROVALS_AUDIT_RETENTION": "-3d"}, want: "APPROVALS_AUDIT_RETENTION must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kv := fullEnv()
			delete(kv, tt.unset)
			for k, v := range tt.set {
				kv[k] = v
			}
			_, err := LoadConfig(env(kv), tt.tableOnly)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to say %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error leaks a token: %v", err)
			}
		})
	}
}

func TestCreateTableNeedsNoSlackTokens(t *testing.T) {
	t.Parallel()
	if _, err := LoadConfig(env(map[string]string{"APPROVALS_TABLE": "approvals"}), true); err != nil {
		t.Fatalf("tableOnly: %v", err)
	}
}

func TestLoadConfigHTTPAddr(t *testing.T) {
	t.Parallel()
	for _, v := range []string{":9090", "127.0.0.1:8080", "[::1]:0", "0.0.0.0:8080"} {
		kv := fullEnv()
		kv["APPROVALS_HTTP_ADDR"] = v
		if c, err := LoadConfig(env(kv), false); err != nil || c.HTTPAddr != v {
			t.Errorf("APPROVALS_HTTP_ADDR=%s: %q, %v", v, c.HTTPAddr, err)
		}
	}
}

// DynamoDB Local on this machine fails the SDK's checksum checks, so they
// are off for a loopback endpoint only.
func TestLoadConfigLocalDynamoDB(t *testing.T) {
	t.Parallel()
	for endpoint, want := range map[string]bool{
		"":                      false,
		"http://127.0.0.1:8000": true,
		"http://localhost:8000": true,
		"https://dynamodb.eu-west-1.amazonaws.com": false,
	} {
		kv := fullEnv()
		kv["AWS_ENDPOINT_URL_DYNAMODB"] = endpoint
		if c, err := LoadConfig(env(kv), false); err != nil || c.LocalDynamoDB != want {
			t.Errorf("AWS_ENDPOINT_URL_DYNAMODB=%q: LocalDynamoDB %v, %v; want %v", endpoint, c.LocalDynamoDB, err, want)
		}
	}
	kv := fullEnv()
	kv["AWS_ENDPOINT_URL"] = "http://127.0.0.1:4566"
	if c, _ := LoadConfig(env(kv), false); !c.LocalDynamoDB {
		t.Error("AWS_ENDPOINT_URL on this machine: want LocalDynamoDB")
	}
}

func TestLoadConfigAuditRetention(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	for v, want := range map[string]time.Duration{"": 400 * day, "30d": 30 * day, "9600h": 400 * day, "24h": day, "3650d": 3650 * day} {
		kv := fullEnv()
		if v != "" {
			kv["APPROVALS_AUDIT_RETENTION"] = v
		}
		c, err := LoadConfig(env(kv), false)
		if err != nil || c.AuditRetention != want {
			t.Errorf("APPROVALS_AUDIT_RETENTION=%q: %v, %v; want %v", v, c.AuditRetention, err, want)
		}
	}
}

func TestLoadConfigLocale(t *testing.T) {
	for v, want := range map[string]string{"": "en", "ja": "ja"} {
		kv := map[string]string{"APPROVALS_TABLE": "approvals", "SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1", "APPROVALS_LOCALE": v}
		if c, err := LoadConfig(func(k string) string { return kv[k] }, false); err != nil || c.Locale != want {
			t.Errorf("APPROVALS_LOCALE=%q: %q, %v", v, c.Locale, err)
		}
	}
	kv := map[string]string{"APPROVALS_TABLE": "approvals", "SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1", "APPROVALS_LOCALE": "de"}
	if _, err := LoadConfig(func(k string) string { return kv[k] }, false); err == nil || !strings.Contains(err.Error(), "APPROVALS_LOCALE") {
		t.Errorf("APPROVALS_LOCALE=de: %v", err)
	}
}
