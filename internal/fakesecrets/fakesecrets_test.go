package fakesecrets

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Requests the SDK would never send are refused as Secrets Manager refuses
// them, in AWS's JSON 1.1 error document.
func TestServerRefusesAsSecretsManagerDoes(t *testing.T) {
	t.Parallel()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.Put("approvals/slack", `{"botToken":"xoxb-1"}`)
	tests := []struct {
		name, target, auth, body string
		wantStatus               int
		wantType                 string
	}{
		{"unsigned", "secretsmanager.GetSecretValue", "", `{"SecretId":"approvals/slack"}`, 400, "MissingAuthenticationTokenException"},
		{"another operation", "secretsmanager.DeleteSecret", "AWS4-HMAC-SHA256 Credential=x", `{"SecretId":"approvals/slack"}`, 400, "UnknownOperationException"},
		{"no secret id", "secretsmanager.GetSecretValue", "AWS4-HMAC-SHA256 Credential=x", `{}`, 400, "ValidationException"},
		{"another version stage", "secretsmanager.GetSecretValue", "AWS4-HMAC-SHA256 Credential=x", `{"SecretId":"approvals/slack","VersionStage":"AWSPREVIOUS"}`, 400, "ResourceNotFoundException"},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/", strings.NewReader(tt.body))
		req.Header.Set("X-Amz-Target", tt.target)
		req.Header.Set("Content-Type", "application/x-amz-json-1.1")
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Type string `json:"__type"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		if resp.StatusCode != tt.wantStatus || doc.Type != tt.wantType || resp.Header.Get("X-Amzn-ErrorType") != tt.wantType {
			t.Errorf("%s: %d %q, want %d %q", tt.name, resp.StatusCode, doc.Type, tt.wantStatus, tt.wantType)
		}
	}
	if n := s.Reads(); n != 2 {
		t.Errorf("Reads = %d, want the 2 GetSecretValue requests that reached a secret lookup", n)
	}
}
