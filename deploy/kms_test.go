package deploy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// With KmsKeyArn the table, the dead-letter queue and every log group are
// encrypted with the key; without it, none names a key and the queue uses
// SQS's own encryption, as before the parameter existed.
func TestKmsKeyEncryptsTheTableQueueAndLogs(t *testing.T) {
	t.Parallel()
	const key = "arn:aws:kms:us-east-1:123456789012:key/0b7e8e1c-4a0d-4f5e-9b7a-3c2d1e0f9a8b"
	for _, withKey := range []bool{false, true} {
		params := everything()
		params["KmsKeyArn"] = []string{""}
		if withKey {
			params["KmsKeyArn"] = []string{key}
		}
		tmpl, err := readTemplate(params)
		if err != nil {
			t.Fatal(err)
		}
		prop := func(resource, name string) any {
			t.Helper()
			n := tmpl.get(tmpl.path("Resources", resource, "Properties"), name)
			if n == nil {
				return nil
			}
			v, err := tmpl.value(n)
			if err != nil {
				t.Fatalf("%s.%s: %v", resource, name, err)
			}
			return v
		}
		var wantSSE, wantKey, wantManaged any = nil, nil, "true"
		if withKey {
			wantSSE = map[string]any{"SSEEnabled": "true", "SSEType": "KMS", "KMSMasterKeyId": key}
			wantKey, wantManaged = key, nil
		}
		if diff := cmp.Diff(wantSSE, prop("ApprovalsTable", "SSESpecification")); diff != "" {
			t.Errorf("key %v: table SSESpecification (-want +got):\n%s", withKey, diff)
		}
		if got, managed := prop("EventsDeadLetterQueue", "KmsMasterKeyId"), prop("EventsDeadLetterQueue", "SqsManagedSseEnabled"); got != wantKey || managed != wantManaged {
			t.Errorf("key %v: queue key %v, SQS-managed %v; want %v, %v", withKey, got, managed, wantKey, wantManaged)
		}
		resources := tmpl.path("Resources")
		groups := 0
		for i := 0; i+1 < len(resources.Content); i += 2 {
			id := resources.Content[i].Value
			if tmpl.resourceType(id) != "AWS::Logs::LogGroup" {
				continue
			}
			groups++
			if got := prop(id, "KmsKeyId"); got != wantKey {
				t.Errorf("key %v: %s is encrypted with %v, want %v", withKey, id, got, wantKey)
			}
		}
		if groups != 9 {
			t.Errorf("%d log groups, want 9 (four for the product, one of them the audit archive, five for the workflows)", groups)
		}
	}
}
