package workflow_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

const token = "AQCEAAAAKgAAAAMAAAAAAAAAAS3cret+Token/ValueThatMustNeverLeak=="

func validPayload() map[string]any {
	return map[string]any{
		"taskToken":       token,
		"executionArn":    "arn:aws:states:us-east-1:123456789012:execution:publish:run-1",
		"stateName":       "Approve",
		"channel":         "C0123ABCD",
		"threadTs":        "1700000000.000100",
		"approvers":       []string{"U0123ABC", "S0456DEF"},
		"requestedBy":     "U0999XYZ",
		"title":           "Publish the post for 2026-11-29",
		"summary":         "*mrkdwn* body",
		"fields":          map[string]string{"Theme": "Step Functions"},
		"drafts":          []string{"first draft", "second draft"},
		"revisionPresets": []string{"For non-engineers", "Shorter"},
		"allowSkip":       true,
		"timeoutSeconds":  86400,
	}
}

func encode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseRequestValid(t *testing.T) {
	t.Parallel()
	got, err := workflow.ParseRequest(encode(t, validPayload()))
	if err != nil {
		t.Fatalf("ParseRequest: %v", err)
	}
	if got.TaskToken.Reveal() != token {
		t.Errorf("token not kept")
	}
	want := workflow.Fields{{Label: "Theme", Value: "Step Functions"}}
	if diff := cmp.Diff(want, got.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if got.TimeoutSeconds != 86400 || !got.AllowSkip || len(got.Drafts) != 2 {
		t.Errorf("fields lost: %+v", got)
	}
}

func TestFieldsKeepOrder(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"taskToken":"t","executionArn":"arn:aws:states:us-east-1:123456789012:execution:demo:run-1","stateName":"Approve",
		"channel":"C0123ABCD","approvers":["U0123ABC"],"title":"x","fields":{"Zeta":"1","Alpha":"2","Mid":"3"}}`)
	got, err := workflow.ParseRequest(raw)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, f := range got.Fields {
		labels = append(labels, f.Label)
	}
	if diff := cmp.Diff([]string{"Zeta", "Alpha", "Mid"}, labels); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	back, _ := json.Marshal(got.Fields)
	if string(back) != `{"Zeta":"1","Alpha":"2","Mid":"3"}` {
		t.Errorf("marshal = %s", back)
	}
}

func TestParseRequestInvalid(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name    string
		edit    func(m map[string]any)
		raw     string
		wantMsg string
	}{
		{name: "missing token", edit: func(m map[string]any) { delete(m, "taskToken") }, wantMsg: "taskToken is required"},
		{name: "token too long", edit: func(m map[string]any) { m["taskToken"] = long(2049) }, wantMsg: "taskToken is longer"},
		{name: "missing channel", edit: func(m map[string]any) { delete(m, "channel") }, wantMsg: "channel is required"},
		{name: "channel name", edit: func(m map[string]any) { m["channel"] = "#general" }, wantMsg: "not a Slack channel ID"},
		{name: "bad thread", edit: func(m map[string]any) { m["threadTs"] = "yesterday" }, wantMsg: "threadTs"},
		{name: "no approvers", edit: func(m map[string]any) { m["approvers"] = []string{} }, wantMsg: "approvers is required"},
		{name: "approver email", edit: func(m map[string]any) { m["approvers"] = []string{"bob@example.com"} }, wantMsg: "neither a user ID"},
		{name: "requester group", edit: func(m map[string]any) { m["requestedBy"] = "S0456DEF" }, wantMsg: "requestedBy"},
		{name: "missing title", edit: func(m map[string]any) { m["title"] = "  " }, wantMsg: "title is required"},
		{name: "title too long", edit: func(m map[string]any) { m["title"] = long(151) }, wantMsg: "title is longer"},
		{name: "summary too long", edit: func(m map[string]any) { m["summary"] = long(3001) }, wantMsg: "summary is longer"},
		{name: "too many drafts", edit: func(m map[string]any) { m["drafts"] = []string{"a", "b", "c", "d", "e", "f"} }, wantMsg: "drafts has 6"},
		{name: "empty draft", edit: func(m map[string]any) { m["drafts"] = []string{"a", " "} }, wantMsg: "draft 2 is empty"},
		{name: "draft too long", edit: func(m map[string]any) { m["drafts"] = []string{long(2901)} }, wantMsg: "draft 1 is longer"},
		{name: "too many presets", edit: func(m map[string]any) { m["revisionPresets"] = strings.Split("a,b,c,d,e,f,g,h,i,j,k", ",") }, wantMsg: "revisionPresets has 11"},
		{name: "preset too long", edit: func(m map[string]any) { m["revisionPresets"] = []string{long(76)} }, wantMsg: "revision preset 1"},
		{name: "total too long", edit: func(m map[string]any) {
			m["drafts"] = []string{long(2900), long(2900), long(2900), long(2900)}
			m["summary"] = long(2000)
		}, wantMsg: "add up to"},
		{name: "negative timeout", edit: func(m map[string]any) { m["timeoutSeconds"] = -1 }, wantMsg: "timeoutSeconds"},
		{name: "bad arn", edit: func(m map[string]any) { m["executionArn"] = "run-1" }, wantMsg: "executionArn"},
		{name: "unknown field", edit: func(m map[string]any) { m["approver"] = "U0123ABC" }, wantMsg: `unknown field "approver"`},
		{name: "wrong type", edit: func(m map[string]any) { m["approvers"] = "U0123ABC" }, wantMsg: `"approvers" must be an array of strings, not a string`},
		{name: "wrong element type", edit: func(m map[string]any) { m["approvers"] = []any{"U0123ABC", 7} }, wantMsg: `"approvers" must be an array of strings, not an array whose element 2 is a number`},
		{name: "fractional timeout", edit: func(m map[string]any) { m["timeoutSeconds"] = 1.5 }, wantMsg: `"timeoutSeconds" must be a whole number, not a number with a fraction`},
		{name: "fields not strings", edit: func(m map[string]any) { m["fields"] = map[string]int{"n": 1} }, wantMsg: "fields"},
		{name: "not json", raw: "approve please", wantMsg: "not valid JSON"},
		{name: "trailing data", raw: `{"taskToken":"t"} {}`, wantMsg: "trailing data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw := []byte(tt.raw)
			if tt.edit != nil {
				m := validPayload()
				tt.edit(m)
				raw = encode(t, m)
			}
			_, err := workflow.ParseRequest(raw)
			if workflow.ErrorCode(err) != workflow.EINVALID {
				t.Fatalf("err = %v, want code %s", err, workflow.EINVALID)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("err = %q, want it to mention %q", err, tt.wantMsg)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("error leaks the task token: %q", err)
			}
		})
	}
}

func TestTaskTokenIsRedacted(t *testing.T) {
	t.Parallel()
	tok := workflow.TaskToken(token)
	a := workflow.Approval{ID: "ap_1", TaskToken: tok}
	for _, s := range []string{tok.String(), string(must(json.Marshal(a))), sprintf("%v %+v %#v %s", a, a, a, tok)} {
		if strings.Contains(s, token) {
			t.Errorf("token leaked: %s", s)
		}
	}
}

// deeplyNested is a payload of about 20 KB whose approvers nest depth
// arrays deep.
func deeplyNested(depth int) []byte {
	return []byte(`{"taskToken":"` + token + `","approvers":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)
}

// A payload nested deeper than MaxRequestNesting is refused before it is
// decoded, with a short error; one nested within the limit but wrongly
// gets a short error too (the kind of the first element, not of all its
// nesting).
func TestDeepNestingIsRefusedShortly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		payload []byte
		want    string
	}{
		{"10,000 deep", deeplyNested(10000), "nests arrays and objects more than 8 deep"},
		{"deep inside a string is fine", []byte(`{"title":"` + strings.Repeat("[{", 5000) + `"}`), "taskToken"},
		{"at the limit", deeplyNested(workflow.MaxRequestNesting - 1), `"approvers" must be an array of strings, not an array whose element 1 is an array`},
		{"over the limit by one", deeplyNested(workflow.MaxRequestNesting), "nests arrays and objects more than 8 deep"},
	} {
		_, err := workflow.ParseRequest(tc.payload)
		if workflow.ErrorCode(err) != workflow.EINVALID || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParseRequest = %v, want EINVALID saying %q", tc.name, err, tc.want)
		}
		if n := len(err.Error()); n > 300 {
			t.Errorf("%s: the error is %d bytes long", tc.name, n)
		}
	}
}

// BenchmarkParseDeeplyNested measures refusing the 20 KB payload nested
// 10,000 deep (it took 3.2 s and returned a 280 KB error before the
// nesting limit).
func BenchmarkParseDeeplyNested(b *testing.B) {
	payload := deeplyNested(10000)
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		if _, err := workflow.ParseRequest(payload); workflow.ErrorCode(err) != workflow.EINVALID {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseRequest measures a valid request.
func BenchmarkParseRequest(b *testing.B) {
	payload, err := json.Marshal(validPayload())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		if _, err := workflow.ParseRequest(payload); err != nil {
			b.Fatal(err)
		}
	}
}
