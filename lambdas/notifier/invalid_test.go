package notifier

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestHandleRefusesInvalidRequests(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name    string
		payload []byte
		wantMsg string // part of the error message
	}{
		{"missing taskToken", payload(t, func(p map[string]any) { delete(p, "taskToken") }), "taskToken is required"},
		{"empty taskToken", payload(t, func(p map[string]any) { p["taskToken"] = "" }), "taskToken is required"},
		{"oversize taskToken", payload(t, func(p map[string]any) { p["taskToken"] = long(2049) }), "taskToken is longer"},
		{"missing channel", payload(t, func(p map[string]any) { delete(p, "channel") }), "channel is required"},
		{"channel name instead of ID", payload(t, func(p map[string]any) { p["channel"] = "#general" }), "not a Slack channel ID"},
		{"missing approvers", payload(t, func(p map[string]any) { delete(p, "approvers") }), "approvers is required"},
		{"empty approvers", payload(t, func(p map[string]any) { p["approvers"] = []string{} }), "approvers is required"},
		{"missing title", payload(t, func(p map[string]any) { delete(p, "title") }), "title is required"},
		{"blank title", payload(t, func(p map[string]any) { p["title"] = "   " }), "title is required"},
		{"bad approver ID", payload(t, func(p map[string]any) { p["approvers"] = []string{"alice"} }), `approver "alice"`},
		{"bad requester ID", payload(t, func(p map[string]any) { p["requestedBy"] = "S0456ABCD" }), "requestedBy"},
		{"too many drafts", payload(t, func(p map[string]any) { p["drafts"] = []string{"1", "2", "3", "4", "5", "6"} }), "drafts has 6 entries"},
		{"too many presets", payload(t, func(p map[string]any) { p["revisionPresets"] = strings.Split("a,b,c,d,e,f,g,h,i,j,k", ",") }), "revisionPresets has 11 entries"},
		{"oversize title", payload(t, func(p map[string]any) { p["title"] = long(151) }), "title is longer"},
		{"oversize summary", payload(t, func(p map[string]any) { p["summary"] = long(3001) }), "summary is longer"},
		{"oversize total text", payload(t, func(p map[string]any) {
			p["drafts"] = []string{long(2900), long(2900), long(2900), long(2900), long(2900)}
		}), "add up to"},
		{"negative timeout", payload(t, func(p map[string]any) { p["timeoutSeconds"] = -1 }), "timeoutSeconds"},
		{"unknown field", payload(t, func(p map[string]any) { p["approver"] = "U0123ABCD" }), `unknown field "approver"`},
		{"wrong JSON type", payload(t, func(p map[string]any) { p["approvers"] = "U0123ABCD" }), `field "approvers" must be an array`},
		{"fields not an object", payload(t, func(p map[string]any) { p["fields"] = []string{"x"} }), "fields must be an object"},
		{"not JSON at all", []byte("approve please " + token), "not valid JSON"},
		{"empty payload", []byte(""), "not valid JSON"},
		{"JSON null", []byte("null"), "taskToken is required"},
		{"JSON array", []byte(`["` + token + `"]`), "must be"},
		{"trailing data", append(payload(t, nil), []byte(` {"taskToken":"x"}`)...), "trailing data"},
		{"nested 10,000 deep (20 KB)", []byte(`{"taskToken":"` + token + `","approvers":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`),
			"nests arrays and objects more than 8 deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)

			resp, err := f.handler.Invoke(context.Background(), tt.payload)
			if err == nil {
				t.Fatalf("Invoke = %s, want an InvalidApprovalRequest", resp)
			}
			if _, ok := err.(*InvalidApprovalRequest); !ok {
				t.Fatalf("error is %T (%v), want *InvalidApprovalRequest as the outermost error", err, err)
			}
			if got := lambdaErrorType(err); got != "InvalidApprovalRequest" {
				t.Errorf("errorType = %q, want InvalidApprovalRequest", got)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
			if got := f.poster.count(); got != 0 {
				t.Errorf("posts = %d, want 0", got)
			}
			if got := f.stored(t); len(got) != 0 {
				t.Errorf("stored %d approvals, want none", len(got))
			}
			if strings.Contains(err.Error(), token) || strings.Contains(f.logs.String(), token) {
				t.Errorf("the task token leaked into the error or the log")
			}
			var target *InvalidApprovalRequest
			if !errors.As(err, &target) {
				t.Errorf("errors.As(*InvalidApprovalRequest) = false")
			}
		})
	}
}
