package jsonata

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// decode parses JSON the way the engine does: ordered objects, numbers
// as json.Number.
func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonvalue.Decode([]byte(s))
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// asText compares objects by their JSON text, so member order counts.
var asText = cmp.Transformer("JSON", func(o *jsonvalue.Object) string { return jsonvalue.Encode(o) })

// stateVars is $states for an order-approval Task state, plus $customerName.
func stateVars(t *testing.T) Vars {
	t.Helper()
	return Vars{
		"states": decode(t, `{
			"input": {"title": "Doctor", "count": 3, "price": 2.5, "approved": true, "note": null,
				"orders": [{"id": "a", "qty": 2, "price": 10}, {"id": "b", "qty": 1, "price": 0.5}, {"id": "c", "qty": 5, "price": 3}],
				"payload": "{\"ok\":true,\"n\":[1,2.50]}"},
			"result": {"Payload": {"status": "APPROVED"}},
			"errorOutput": {"Error": "Rejected", "Cause": "no"},
			"context": {"Execution": {"Id": "arn:aws:states:us-east-1:123456789012:execution:sm:run-1", "Name": "run-1"},
				"Task": {"Token": "tok-123"}, "State": {"Name": "Approve"}}
		}`),
		"customerName": "María",
		"limit":        json.Number("4"),
	}
}
