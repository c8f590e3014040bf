package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

// The function reads what every Lambda function reads (internal/lambdaenv,
// tested there) and stops at a bad setting before serving.
func TestRunReturnsConfigErrors(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	err := run(context.Background(), env(map[string]string{"SLACK_BOT_TOKEN": "xoxb-0123-token"}), &stderr, &stderr)
	if err == nil || !strings.Contains(err.Error(), "APPROVALS_TABLE") {
		t.Errorf("run = %v, want an error naming APPROVALS_TABLE", err)
	}
}
