package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The binary writes one EMF line per invocation to stdout, named after
// the function, and nothing else there (log lines go to stderr).
func TestNotifierWritesEMFToStdout(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.start(t)
	token := newToken()
	if r := invoke(t, s, requestPayload(t, token, nil)); r.Failed() {
		t.Fatalf("Invoke failed: %s: %s", r.ErrorType, r.ErrorMessage)
	}
	if r := invoke(t, s, requestPayload(t, newToken(), func(p map[string]any) { delete(p, "title") })); r.ErrorType != "InvalidApprovalRequest" {
		t.Fatalf("errorType = %q, want InvalidApprovalRequest", r.ErrorType)
	}
	checkNoSecrets(t, s, token) // stops the process: all output is in

	lines := strings.Split(strings.TrimSpace(s.proc.Stdout()), "\n")
	if len(lines) != 2 {
		t.Fatalf("stdout has %d lines, want one EMF line per invocation:\n%s", len(lines), s.proc.Stdout())
	}
	for i, want := range []string{"RequestsPosted", "InvalidRequests"} {
		var doc map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &doc); err != nil {
			t.Fatalf("line %d is not JSON: %s", i+1, lines[i])
		}
		if doc["_aws"] == nil || doc["Function"] != "approvals-notifier" || doc[want] != 1.0 {
			t.Errorf("line %d = %s, want EMF with Function approvals-notifier and %s 1", i+1, lines[i], want)
		}
	}
}
