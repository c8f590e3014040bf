package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func validEnv() map[string]string {
	return map[string]string{"SLACK_BOT_TOKEN": "xoxb-0123-token", "APPROVALS_TABLE": "approvals"}
}

// The notifier reads what every Lambda function reads (internal/lambdaenv,
// tested there) and how long to keep a record.
func TestLoadConfigRetention(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]time.Duration{"": 90 * 24 * time.Hour, "24h": 24 * time.Hour, "1h": time.Hour} {
		e := validEnv()
		if v != "" {
			e["APPROVALS_RETENTION"] = v
		}
		c, err := loadConfig(env(e))
		if err != nil || c.Retention != want || c.Table != "approvals" {
			t.Errorf("APPROVALS_RETENTION=%q: retention %s, table %q, %v; want %s", v, c.Retention, c.Table, err, want)
		}
	}
	for _, v := range []string{"5m", "a while", "-2h"} {
		e := validEnv()
		e["APPROVALS_RETENTION"] = v
		if _, err := loadConfig(env(e)); err == nil || !strings.Contains(err.Error(), "APPROVALS_RETENTION must be") {
			t.Errorf("APPROVALS_RETENTION=%q: error %v", v, err)
		}
	}
}

func TestRunReturnsConfigErrors(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	err := run(context.Background(), env(map[string]string{"SLACK_BOT_TOKEN": "xoxb-0123-token"}), &stderr, &stderr)
	if err == nil || !strings.Contains(err.Error(), "APPROVALS_TABLE") {
		t.Errorf("run = %v, want an error naming APPROVALS_TABLE", err)
	}
}

func TestLoadConfigLocale(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{"": "en", "en": "en", "ja": "ja"} {
		e := validEnv()
		e["APPROVALS_LOCALE"] = v
		if c, err := loadConfig(env(e)); err != nil || c.Locale != want {
			t.Errorf("APPROVALS_LOCALE=%q: %q, %v; want %q", v, c.Locale, err, want)
		}
	}
	for _, v := range []string{"fr", "JA", "ja-JP"} {
		e := validEnv()
		e["APPROVALS_LOCALE"] = v
		if _, err := loadConfig(env(e)); err == nil || !strings.Contains(err.Error(), `APPROVALS_LOCALE must be "en" or "ja"`) {
			t.Errorf("APPROVALS_LOCALE=%q: error %v", v, err)
		}
	}
}
