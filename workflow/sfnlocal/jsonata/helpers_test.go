package jsonata

import (
	"encoding/json"
	"strings"
	"testing"
)

// decode parses JSON the way the engine does, with json.Number.
func decode(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

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
