package notifier

import (
	"context"
	"strings"
	"testing"
)

// TestHandleRefusesContractViolations checks that what the contract
// refuses (wrongly cased or repeated keys, an unresolved token or ARN, a
// missing executionArn, repeated presets) fails as InvalidApprovalRequest
// before anything is stored or posted, and never echoes the token.
func TestHandleRefusesContractViolations(t *testing.T) {
	t.Parallel()
	raw := func(extra string) []byte {
		base := strings.TrimSuffix(string(payload(t, nil)), "}")
		return []byte(base + "," + extra + "}")
	}
	tests := []struct {
		name    string
		payload []byte
		wantMsg string
	}{
		{"upper-case key", raw(`"APPROVERS":["U0MALLORY"]`), `"APPROVERS" is not a field; did you mean "approvers"?`},
		{"approvers replaced by a later key", raw(`"Approvers":["U0MALLORY"]`), `"Approvers" is not a field; did you mean "approvers"?`},
		{"repeated key", raw(`"requestedBy":"U0MALLORY"`), `field "requestedBy" appears more than once`},
		{"literal $$.Task.Token", payload(t, func(p map[string]any) { p["taskToken"] = "$$.Task.Token" }),
			`taskToken is not a task token but an unresolved path or expression (or text with spaces): pass it as "taskToken.$": "$$.Task.Token" (JSONPath) or "taskToken": "{% $states.context.Task.Token %}" (JSONata)`},
		{"JSONata token outside JSONata", payload(t, func(p map[string]any) { p["taskToken"] = "{% $states.context.Task.Token %}" }), `"taskToken.$": "$$.Task.Token"`},
		{"missing executionArn", payload(t, func(p map[string]any) { delete(p, "executionArn") }), "executionArn is required"},
		{"literal $$.Execution.Id", payload(t, func(p map[string]any) { p["executionArn"] = "$$.Execution.Id" }), `"executionArn.$": "$$.Execution.Id"`},
		{"repeated preset", payload(t, func(p map[string]any) { p["revisionPresets"] = []string{"Shorter", "Shorter"} }), `revisionPresets repeats "Shorter"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			resp, err := f.handler.Invoke(context.Background(), tt.payload)
			if err == nil {
				t.Fatalf("Invoke = %s, want an InvalidApprovalRequest", resp)
			}
			if got := lambdaErrorType(err); got != ErrorInvalidApprovalRequest {
				t.Errorf("errorType = %q (%v), want %s", got, err, ErrorInvalidApprovalRequest)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
			if f.poster.count() != 0 || len(f.stored(t)) != 0 {
				t.Errorf("posted %d, stored %d; want nothing", f.poster.count(), len(f.stored(t)))
			}
			if strings.Contains(err.Error(), token) || strings.Contains(f.logs.String(), token) {
				t.Error("the task token leaked into the error or the log")
			}
		})
	}
}
