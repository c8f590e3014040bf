package sfnlocal

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// failing fails the first n attempts with err, recording when each
// attempt ran, then succeeds.
type failing struct {
	clock Clock
	n     int
	err   string
	mu    sync.Mutex
	at    []time.Time
	calls chan struct{}
}

func (f *failing) Supports(string) bool { return true }

func (f *failing) Invoke(ctx context.Context, call task.Call) (json.RawMessage, error) {
	f.mu.Lock()
	f.at = append(f.at, f.clock.Now())
	n := len(f.at)
	f.mu.Unlock()
	if f.calls != nil {
		f.calls <- struct{}{}
	}
	if n <= f.n {
		return nil, &task.Failure{Name: f.err, Cause: fmt.Sprintf("attempt %d", n)}
	}
	return json.RawMessage(`"ok"`), nil
}

func TestRetryBackoff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, retrier string
		failures      int
		want          []time.Duration
		wantStatus    string
	}{
		{"defaults", `{"ErrorEquals":["E"]}`, 3, []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second}, StatusSucceeded},
		{"exhausted", `{"ErrorEquals":["E"],"MaxAttempts":2,"IntervalSeconds":3}`, 5, []time.Duration{3 * time.Second, 6 * time.Second}, StatusFailed},
		{"max delay", `{"ErrorEquals":["E"],"IntervalSeconds":2,"BackoffRate":3,"MaxDelaySeconds":10,"MaxAttempts":4}`, 4,
			[]time.Duration{2 * time.Second, 6 * time.Second, 10 * time.Second, 10 * time.Second}, StatusSucceeded},
		{"never", `{"ErrorEquals":["E"],"MaxAttempts":0}`, 1, nil, StatusFailed},
		{"TaskFailed wildcard", `{"ErrorEquals":["States.TaskFailed"],"IntervalSeconds":1,"BackoffRate":1}`, 2, []time.Duration{time.Second, time.Second}, StatusSucceeded},
		{"no match", `{"ErrorEquals":["Other"]}`, 1, nil, StatusFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			f := &failing{clock: h.clock, n: tt.failures, err: "E", calls: make(chan struct{}, 10)}
			h.e.integs = append(h.e.integs, f)
			arn := h.start(h.create(`{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Retry":[`+tt.retrier+`],"End":true}}}`), `{}`)
			var got []time.Duration
			for range tt.want {
				<-f.calls
				if err := h.clock.BlockUntil(ctx(t), 2); err != nil { // execution limit + retry timer
					t.Fatal(err)
				}
				var waited time.Duration
				for h.clock.Pending() == 2 {
					h.clock.Advance(250 * time.Millisecond)
					waited += 250 * time.Millisecond
				}
				got = append(got, waited)
			}
			x := h.wait(arn)
			if x.Status != tt.wantStatus {
				t.Fatalf("status = %s (%s)", x.Status, x.Error)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("intervals = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestJitterBounds(t *testing.T) {
	r := &retrier{interval: 4, backoff: 2, maxDelay: 10, jitterFull: true}
	for n := int64(0); n < 4; n++ {
		ceiling := min(4*float64(int64(1)<<n), 10)
		for range 200 {
			d := r.delay(n)
			if d < 0 || d > time.Duration(ceiling*float64(time.Second)) {
				t.Fatalf("retry %d: delay %v outside [0, %vs]", n, d, ceiling)
			}
		}
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		errorEquals []string
		err         stateError
		want        bool
	}{
		{[]string{"States.ALL"}, stateError{Name: "X"}, true},
		{[]string{"States.ALL"}, stateError{Name: errRuntime}, false},
		{[]string{"States.ALL"}, stateError{Name: errDataLimitExceeded}, false},
		{[]string{"States.TaskFailed"}, stateError{Name: "Lambda.Unknown"}, true},
		{[]string{"States.TaskFailed"}, stateError{Name: errTimeout}, false},
		{[]string{"States.Timeout"}, stateError{Name: errTimeout, heartbeat: true}, true},
		{[]string{"States.HeartbeatTimeout"}, stateError{Name: errTimeout, heartbeat: true}, true},
		{[]string{"States.HeartbeatTimeout"}, stateError{Name: errTimeout}, false},
		{[]string{"A", "B"}, stateError{Name: "B"}, true},
		{[]string{"a"}, stateError{Name: "A"}, false},
	}
	for _, tt := range tests {
		if got := matches(tt.errorEquals, &tt.err); got != tt.want {
			t.Errorf("matches(%v, %s) = %v, want %v", tt.errorEquals, tt.err.Name, got, tt.want)
		}
	}
}

func TestCatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, catch, want string
	}{
		{"first match wins", `[{"ErrorEquals":["Other"],"Next":"A"},{"ErrorEquals":["E"],"Next":"B"},{"ErrorEquals":["X"],"Next":"V"},{"ErrorEquals":["States.ALL"],"Next":"A"}]`,
			`{"Error":"E","Cause":"attempt 1"}`},
		{"result path keeps input", `[{"ErrorEquals":["X"],"Next":"A"},{"ErrorEquals":["Y"],"Next":"V"},{"ErrorEquals":["States.ALL"],"ResultPath":"$.err","Next":"B"}]`,
			`{"in":1,"err":{"Error":"E","Cause":"attempt 1"}}`},
		{"result path null", `[{"ErrorEquals":["E"],"ResultPath":null,"Next":"B"},{"ErrorEquals":["X"],"Next":"A"},{"ErrorEquals":["Y"],"Next":"V"}]`, `{"in":1}`},
		{"assign", `[{"ErrorEquals":["E"],"Assign":{"why.$":"$.Cause"},"ResultPath":null,"Next":"V"},{"ErrorEquals":["X"],"Next":"A"},{"ErrorEquals":["Y"],"Next":"B"}]`, `"attempt 1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.e.integs = append(h.e.integs, &failing{clock: h.clock, n: 1, err: "E"})
			x := h.run(`{"StartAt":"T","States":{
				"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Catch":`+tt.catch+`,"End":true},
				"A":{"Type":"Fail","Error":"WrongCatcher"},
				"B":{"Type":"Pass","End":true},
				"V":{"Type":"Pass","Parameters":{"v.$":"$why"},"OutputPath":"$.v","End":true}}}`, `{"in":1}`)
			jsonEqual(t, succeeded(t, x), tt.want)
		})
	}
}

func TestCatchJSONata(t *testing.T) {
	h := newHarness(t)
	h.e.integs = append(h.e.integs, &failing{clock: h.clock, n: 1, err: "E"})
	x := h.run(`{"QueryLanguage":"JSONata","StartAt":"T","States":{
		"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Arguments":{"x":"{% $states.input.in %}"},
			"Catch":[{"ErrorEquals":["E"],"Output":{"err":"{% $states.errorOutput.Error %}","in":"{% $states.input.in %}"},"Assign":{"c":"{% $states.errorOutput.Cause %}"},"Next":"B"}],"End":true},
		"B":{"Type":"Pass","Output":"{% $merge([$states.input, {'c': $c}]) %}","End":true}}}`, `{"in":7}`)
	jsonEqual(t, succeeded(t, x), `{"err":"E","in":7,"c":"attempt 1"}`)
}

func TestTaskDataFlow(t *testing.T) {
	var got []byte
	integ := funcIntegration(func(_ context.Context, call task.Call) (json.RawMessage, error) {
		got = call.Parameters
		return json.RawMessage(`{"Payload":{"v":42},"StatusCode":200}`), nil
	})
	h := newHarness(t, integ)
	x := h.run(`{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
		"InputPath":"$.req","Parameters":{"FunctionName":"f","Payload.$":"$"},
		"ResultSelector":{"value.$":"$.Payload.v"},"ResultPath":"$.res","OutputPath":"$.res","End":true}}}`, `{"req":{"a":1}}`)
	jsonEqual(t, succeeded(t, x), `{"value":42}`)
	jsonEqual(t, string(got), `{"FunctionName":"f","Payload":{"a":1}}`)
}

func TestLambdaFunctionArnEvents(t *testing.T) {
	h := newHarness(t, funcIntegration(func(context.Context, task.Call) (json.RawMessage, error) { return json.RawMessage(`1`), nil }))
	x := h.run(`{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:123456789012:function:f","End":true}}}`, `{}`)
	succeeded(t, x)
	got := fmt.Sprint(h.types(x.ExecutionArn))
	want := "[ExecutionStarted TaskStateEntered LambdaFunctionScheduled LambdaFunctionStarted LambdaFunctionSucceeded TaskStateExited ExecutionSucceeded]"
	if got != want {
		t.Errorf("history = %s\nwant      %s", got, want)
	}
}
