package sfnapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/sfnlocal"
)

const (
	fuzzMachine   = "arn:aws:states:us-east-1:123456789012:stateMachine:fuzz"
	fuzzExecution = "arn:aws:states:us-east-1:123456789012:execution:fuzz:run"
	fuzzDef       = `{"StartAt":"Hold","States":{"Hold":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","Parameters":{"FunctionName":"f","Payload.$":"$"},"Next":"Wait"},"Wait":{"Type":"Wait","Seconds":10,"End":true}}}`
)

// fuzzBodies are request bodies for the seeds: each is tried with every
// operation, so every route sees its own members and the others'.
var fuzzBodies = []string{
	`{}`,
	``,
	`null`,
	`[]`,
	`{"name":"m2","definition":` + quote(fuzzDef) + `,"roleArn":"arn:aws:iam::123456789012:role/sfn","type":"EXPRESS"}`,
	`{"stateMachineArn":"` + fuzzMachine + `","name":"second","input":"{\"a\":1}","traceHeader":"t"}`,
	`{"stateMachineArn":"` + fuzzMachine + `","definition":` + quote(fuzzDef) + `}`,
	`{"stateMachineArn":"` + fuzzMachine + `","statusFilter":"RUNNING","maxResults":1,"nextToken":"x"}`,
	`{"executionArn":"` + fuzzExecution + `","maxResults":2,"reverseOrder":true,"includeExecutionData":false}`,
	`{"executionArn":"` + fuzzExecution + `","error":"E","cause":"C"}`,
	`{"taskToken":"AQxyz","output":"{}","error":"E","cause":"C"}`,
	`{"definition":"{\"StartAt\":\"A\",\"States\":{\"A\":{\"Type\":\"Pass\",\"Next\":\"B\"}}}","type":"STANDARD","severity":"WARNING","maxResults":3}`,
	`{"maxResults":-1,"nextToken":""}`,
	`{"executionArn":12,"stateMachineArn":{},"maxResults":"1"}`,
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// FuzzAPI sends any body to any operation: the handler must answer 200
// with a JSON body, or a 4xx JSON error naming its __type (the header too);
// never a 5xx, which it sends only when an operation panics or fails
// outside the API's errors.
func FuzzAPI(f *testing.F) {
	var ops []string
	for name := range (&handler{}).routes() {
		ops = append(ops, name)
	}
	sort.Strings(ops)
	for _, op := range ops {
		for _, body := range fuzzBodies {
			f.Add(op, body)
		}
	}
	f.Add("NoSuchOperation", `{}`)
	f.Fuzz(func(t *testing.T, operation, body string) {
		engine := sfnlocal.New(sfnlocal.Options{Clock: sfnlocal.NewFakeClock(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))})
		defer engine.Close()
		seedEngine(t, engine)
		h := NewHandler(engine)

		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", targetPrefix+operation)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		status, got := rec.Code, rec.Body.Bytes()
		if !json.Valid(got) {
			t.Fatalf("%s: status %d, body is not JSON: %q", operation, status, got)
		}
		if status == http.StatusOK {
			var obj map[string]any
			if err := json.Unmarshal(got, &obj); err != nil || obj == nil {
				t.Fatalf("%s: 200 with a body that is not an object: %q", operation, got)
			}
			return
		}
		if status < 400 || status > 499 {
			t.Fatalf("%s: status %d: %s", operation, status, got)
		}
		var e struct {
			Type string `json:"__type"`
		}
		if err := json.Unmarshal(got, &e); err != nil || e.Type == "" {
			t.Fatalf("%s: status %d without __type: %s", operation, status, got)
		}
		if hdr := rec.Header().Get("X-Amzn-ErrorType"); hdr != e.Type {
			t.Fatalf("%s: X-Amzn-ErrorType %q, __type %q", operation, hdr, e.Type)
		}
	})
}

// seedEngine gives the fuzzed request something to find: the machine
// "fuzz" and its execution "run", waiting on a callback.
func seedEngine(t *testing.T, engine *sfnlocal.Engine) {
	ctx := context.Background()
	if _, err := engine.CreateStateMachine(ctx, sfnlocal.CreateStateMachineInput{Name: "fuzz", Definition: fuzzDef, RoleArn: "arn:aws:iam::123456789012:role/sfn"}); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.StartExecution(ctx, sfnlocal.StartExecutionInput{StateMachineArn: fuzzMachine, Name: "run", Input: `{"k":"v"}`}); err != nil {
		t.Fatal(err)
	}
}
