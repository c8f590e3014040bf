package workflow_test

import (
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/workflow"
)

// secretApprover is a value the tests put in payloads; no error text may
// quote it (error texts name keys, never values).
const secretApprover = "U0VALUESTAYSOUT"

// payloadWith is a valid payload with extra members appended, written as
// raw JSON so that keys can repeat.
func payloadWith(t *testing.T, extra string) []byte {
	t.Helper()
	base := strings.TrimSuffix(string(encode(t, validPayload())), "}")
	return []byte(base + "," + extra + "}")
}

// TestParseRequestExactKeys checks that keys match exactly, once each, at
// every level of the payload: encoding/json matched them regardless of
// case and let a later duplicate replace an earlier value.
func TestParseRequestExactKeys(t *testing.T) {
	t.Parallel()
	q := func(s string) string { return string(encode(t, s)) }
	tests := []struct {
		name    string
		raw     []byte
		wantMsg string
	}{
		{"upper-case approvers", payloadWith(t, `"APPROVERS":["`+secretApprover+`"]`), `"APPROVERS" is not a field; did you mean "approvers"?`},
		{"upper-case allowSkip", payloadWith(t, `"ALLOWSKIP":false`), `"ALLOWSKIP" is not a field; did you mean "allowSkip"?`},
		{"approvers then Approvers", payloadWith(t, `"Approvers":["`+secretApprover+`"]`), `"Approvers" is not a field; did you mean "approvers"?`},
		{"requestedBy then RequestedBY", payloadWith(t, `"RequestedBY":"`+secretApprover+`"`), `"RequestedBY" is not a field; did you mean "requestedBy"?`},
		{"approvers twice", payloadWith(t, `"approvers":["`+secretApprover+`"]`), `field "approvers" appears more than once`},
		{"title twice", payloadWith(t, `"title":"another title"`), `field "title" appears more than once`},
		{"misspelt", payloadWith(t, `"aprovers":["`+secretApprover+`"]`), `unknown field "aprovers"; did you mean "approvers"?`},
		{"unknown", payloadWith(t, `"colour":"`+secretApprover+`"`), `unknown field "colour"; the fields are taskToken, executionArn`},
		{"key with .$ that was not resolved", payloadWith(t, `"channel.$":"$.request.channel"`), `"channel.$" is not a field: Step Functions resolves a key ending in ".$" only in a JSONPath state's Parameters`},
		{"unicode case folding", payloadWith(t, `"allowſkip":true`), `"allowſkip" is not a field; did you mean "allowSkip"?`},
		{"duplicate field label", []byte(strings.Replace(string(encode(t, validPayload())), `"fields":{"Theme":"Step Functions"}`,
			`"fields":{"Theme":"Step Functions","Theme":"`+secretApprover+`"}`, 1)), `fields: label "Theme" appears twice`},
		{"JSON array", []byte(`[` + q(token) + `]`), "approval request must be a JSON object, not an array"},
		{"JSON string", []byte(q(token)), "approval request must be a JSON object, not a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := workflow.ParseRequest(tt.raw)
			if workflow.ErrorCode(err) != workflow.EINVALID {
				t.Fatalf("err = %v, want code %s", err, workflow.EINVALID)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("err = %q, want it to contain %q", err, tt.wantMsg)
			}
			for _, v := range []string{token, secretApprover} {
				if strings.Contains(err.Error(), v) {
					t.Errorf("err = %q quotes the value %q", err, v)
				}
			}
		})
	}
}

// TestParseRequestUnresolvedPaths checks that a path or expression Step
// Functions passed on unresolved (a key without ".$", {% %} outside a
// JSONata state) is refused with how to pass the value.
func TestParseRequestUnresolvedPaths(t *testing.T) {
	t.Parallel()
	const (
		tokenHint = `"taskToken.$": "$$.Task.Token" (JSONPath) or "taskToken": "{% $states.context.Task.Token %}" (JSONata)`
		arnHint   = `"executionArn.$": "$$.Execution.Id" (JSONPath) or "executionArn": "{% $states.context.Execution.Id %}" (JSONata)`
		stateHint = `"stateName.$": "$$.State.Name" (JSONPath) or "stateName": "{% $states.context.State.Name %}" (JSONata)`
	)
	idHint := func(key string) string { return `add ".$" to the key ("` + key + `.$": "$.path")` }
	tests := []struct {
		name    string
		key     string
		value   any
		wantMsg string
	}{
		{"token path", "taskToken", "$$.Task.Token", tokenHint},
		{"token path with spaces", "taskToken", "  $$.Task.Token ", tokenHint},
		{"token JSONata", "taskToken", "{% $states.context.Task.Token %}", tokenHint},
		{"token JSONata without braces", "taskToken", "$states.context.Task.Token", tokenHint},
		{"token intrinsic", "taskToken", "States.Format('{}', $$.Task.Token)", tokenHint},
		{"token input path", "taskToken", "$.token", tokenHint},
		{"token variable", "taskToken", "$token", tokenHint},
		{"token with a space", "taskToken", "my task token", tokenHint},
		{"token with a newline", "taskToken", token + "\n", tokenHint},
		{"execution path", "executionArn", "$$.Execution.Id", arnHint},
		{"execution JSONata", "executionArn", "{% $states.context.Execution.Id %}", arnHint},
		{"state path", "stateName", "$$.State.Name", stateHint},
		{"state JSONata", "stateName", "{% $states.context.State.Name %}", stateHint},
		{"channel path", "channel", "$.request.channel", idHint("channel")},
		{"channel JSONata", "channel", "{% $request.channel %}", idHint("channel")},
		{"channel intrinsic", "channel", "States.ArrayGetItem($.channels, 0)", idHint("channel")},
		{"thread path", "threadTs", "$.thread", idHint("threadTs")},
		{"approver path", "approvers", []string{"$.request.approvers"}, idHint("approvers")},
		{"approvers path as a string", "approvers", "$.request.approvers", idHint("approvers")},
		{"approvers JSONata as a string", "approvers", "{% $request.approvers %}", idHint("approvers")},
		{"requester context path", "requestedBy", "$$.Execution.Input.requestedBy", idHint("requestedBy")},
		{"timeout path", "timeoutSeconds", "$.request.timeout", idHint("timeoutSeconds")},
		{"allowSkip path", "allowSkip", "$.skip", idHint("allowSkip")},
		{"fields path as a string", "fields", "$.request.fields", idHint("fields")},
		{"drafts JSONata as a string", "drafts", "{% $draft.drafts %}", idHint("drafts")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := validPayload()
			m[tt.key] = tt.value
			_, err := workflow.ParseRequest(encode(t, m))
			if workflow.ErrorCode(err) != workflow.EINVALID {
				t.Fatalf("err = %v, want code %s", err, workflow.EINVALID)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) || !strings.HasPrefix(err.Error(), tt.key) {
				t.Errorf("err = %q, want it to start with %q and contain %q", err, tt.key, tt.wantMsg)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("err = %q quotes the task token", err)
			}
		})
	}
}

// TestParseRequestFreeTextMayHoldDollar checks that only identity and ID
// fields are checked for unresolved paths: text people read may say "$".
func TestParseRequestFreeTextMayHoldDollar(t *testing.T) {
	t.Parallel()
	m := validPayload()
	m["title"] = "$$.Task.Token costs $5"
	m["summary"] = "{% $states.input %} and States.Format('{}', $.x)"
	m["fields"] = map[string]string{"$.price": "$5", "{% x %}": "$$.Execution.Id"}
	m["drafts"] = []string{"$.draft", "States.Format('{}')"}
	m["revisionPresets"] = []string{"$ cheaper", "{% shorter %}"}
	r, err := workflow.ParseRequest(encode(t, m))
	if err != nil {
		t.Fatalf("ParseRequest: %v", err)
	}
	if r.Title != m["title"] || r.Drafts[0] != "$.draft" || r.RevisionPresets[1] != "{% shorter %}" {
		t.Errorf("free text changed: %+v", r)
	}
}

// TestParseRequestDistinctPresets checks that repeated presets are
// refused naming the preset: Slack refuses a modal whose radio buttons
// share a value, so "Request changes" would never open.
func TestParseRequestDistinctPresets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		presets []string
		wantMsg string
	}{
		{[]string{"Shorter", "More detail", "Shorter"}, `revisionPresets repeats "Shorter" (presets 1 and 3)`},
		{[]string{"Shorter", " Shorter "}, `revisionPresets repeats "Shorter" (presets 1 and 2)`},
	}
	for _, tt := range tests {
		m := validPayload()
		m["revisionPresets"] = tt.presets
		_, err := workflow.ParseRequest(encode(t, m))
		if workflow.ErrorCode(err) != workflow.EINVALID || !strings.Contains(err.Error(), tt.wantMsg) {
			t.Errorf("presets %q: err = %v, want EINVALID containing %q", tt.presets, err, tt.wantMsg)
		}
	}
	m := validPayload()
	m["revisionPresets"] = []string{"Shorter", "shorter", "Shorter!"}
	if _, err := workflow.ParseRequest(encode(t, m)); err != nil {
		t.Errorf("distinct presets refused: %v", err)
	}
}

// TestParseRequestExecutionARN checks that executionArn is required and
// has the shape of a Step Functions execution ARN, in every form AWS
// mints one (Service Authorization Reference, resource types execution,
// express, labelled execution, labelled express) and every partition.
func TestParseRequestExecutionARN(t *testing.T) {
	t.Parallel()
	valid := []string{
		"arn:aws:states:us-east-1:123456789012:execution:MyMachine:run-1",
		"arn:aws:states:eu-west-1:123456789012:execution:publish-with-approval:0b8b5e4c-6a1e-4f0e-9d3b-1f2a3b4c5d6e",
		"arn:aws:states:us-east-1:123456789012:express:MyMachine:run-1:9c1a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8",
		"arn:aws:states:us-east-1:123456789012:execution:MyMachine/MapRunLabel:0b8b5e4c-6a1e-4f0e-9d3b-1f2a3b4c5d6e",
		"arn:aws:states:us-east-1:123456789012:express:MyMachine/Label:name:9c1a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8",
		"arn:aws-cn:states:cn-north-1:123456789012:execution:M:r",
		"arn:aws-us-gov:states:us-gov-west-1:123456789012:execution:M:r",
		"arn:aws-iso:states:us-iso-east-1:123456789012:execution:M:r",
		"arn:aws-iso-b:states:us-isob-east-1:123456789012:execution:M:r",
		"arn:aws-iso-f:states:us-isof-south-1:123456789012:execution:M:r",
		"arn:aws-eusc:states:eusc-de-east-1:123456789012:execution:M:r",
		"arn:aws:states:ap-southeast-2:123456789012:execution:Veröffentlichen_2026.11:lauf-1",
		"arn:aws:states:us-east-1:123456789012:execution:" + strings.Repeat("m", 80) + ":" + strings.Repeat("r", 80),
		"arn:aws:states:us-east-1:123456789012:execution:" + strings.Repeat("ü", 80) + ":r", // 80 characters, 160 bytes
	}
	for _, arn := range valid {
		m := validPayload()
		m["executionArn"] = arn
		if _, err := workflow.ParseRequest(encode(t, m)); err != nil {
			t.Errorf("executionArn %s refused: %v", arn, err)
		}
	}
	tests := []struct {
		arn     string
		wantMsg string
	}{
		{"", "executionArn is required"},
		{"run-1", "executionArn is not a Step Functions execution ARN"},
		{"arn:aws:states:us-east-1:123456789012:stateMachine:MyMachine", "executionArn is a state machine ARN, not an execution ARN"},
		{"arn:aws:states:us-east-1:123456789012:mapRun:MyMachine/Label:0b8b5e4c", "not a Step Functions execution ARN"},
		{"arn:aws:lambda:us-east-1:123456789012:function:notifier", "not a Step Functions execution ARN"},
		{"arn:aws:states:us-east-1:12345678901:execution:M:r", "not a Step Functions execution ARN"},
		{"arn:aws:states:::execution:M:r", "not a Step Functions execution ARN"},
		{"arn:aws:states:us-east-1:123456789012:execution:M", "not a Step Functions execution ARN"},
		{"arn:aws:states:us-east-1:123456789012:execution:M:r:extra", "not a Step Functions execution ARN"},
		{"arn:aws:states:us-east-1:123456789012:express:M:r", "not a Step Functions execution ARN"},
		{"arn:aws:states:us-east-1:123456789012:execution:My Machine:r", "not a Step Functions execution ARN"},
		{"arn:aws:states:us-east-1:123456789012:execution:M:" + strings.Repeat("r", 81), "not a Step Functions execution ARN"},
		{"arn:aws:states:us-east-1:123456789012:execution:" + strings.Repeat("m", 81) + ":r", "not a Step Functions execution ARN"},
		{"arn:aws:states:us-east-1:123456789012:execution:M/" + strings.Repeat("l", 81) + ":r", "not a Step Functions execution ARN"},
		{"arn:aws:states:us-east-1:123456789012:express:M:r:" + strings.Repeat("x", 81), "not a Step Functions execution ARN"},
		{"arn:aws:states:us-east-1:123456789012:execution:" + strings.Repeat("m", 80) + "/" + strings.Repeat("l", 80) + ":" + strings.Repeat("r", 80), "longer than 256 characters"},
		{"ARN:AWS:STATES:US-EAST-1:123456789012:EXECUTION:M:R", "not a Step Functions execution ARN"},
		{"arn:aws:states:us-east-1:123456789012:execution:M:r\n", "not a Step Functions execution ARN"},
		{token, "not a Step Functions execution ARN"},
	}
	for _, tt := range tests {
		m := validPayload()
		m["executionArn"] = tt.arn
		if tt.arn == "" {
			delete(m, "executionArn")
		}
		_, err := workflow.ParseRequest(encode(t, m))
		if workflow.ErrorCode(err) != workflow.EINVALID || !strings.Contains(err.Error(), tt.wantMsg) {
			t.Errorf("executionArn %q: err = %v, want EINVALID containing %q", tt.arn, err, tt.wantMsg)
			continue
		}
		if !strings.Contains(err.Error(), `"executionArn.$": "$$.Execution.Id"`) && !strings.Contains(err.Error(), "longer") {
			t.Errorf("executionArn %q: err = %q does not say how to pass it", tt.arn, err)
		}
		if strings.Contains(err.Error(), token) {
			t.Errorf("err = %q quotes the task token", err)
		}
	}
}

// TestParseRequestLongIDsAreNotQuoted checks that an ID field holding a
// long value (a task token in the wrong field, say) is not quoted back.
func TestParseRequestLongIDsAreNotQuoted(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"channel", "threadTs", "requestedBy", "approvers"} {
		m := validPayload()
		m[key] = token
		if key == "approvers" {
			m[key] = []string{token}
		}
		_, err := workflow.ParseRequest(encode(t, m))
		if workflow.ErrorCode(err) != workflow.EINVALID {
			t.Fatalf("%s: err = %v, want EINVALID", key, err)
		}
		if strings.Contains(err.Error(), token[:20]) {
			t.Errorf("%s: err = %q quotes the value", key, err)
		}
	}
}
