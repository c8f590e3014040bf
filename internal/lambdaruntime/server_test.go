package lambdaruntime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// ignoreDuration leaves Result.Duration, a measurement, out of comparisons.
var ignoreDuration = cmpopts.IgnoreFields(Result{}, "Duration")

func TestInvokeDeliversPayloadAndResponse(t *testing.T) {
	t.Parallel()
	s := start(t, Options{FunctionARN: "arn:aws:lambda:eu-west-1:111122223333:function:notifier", Timeout: 5 * time.Second})
	rt := newRawRuntime(t, s)
	ctx := testContext(t)

	before := time.Now()
	outcome := invokeAsync(ctx, s, []byte(`{"hello":"world"}`))
	inv, err := rt.next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(inv.body), `{"hello":"world"}`; got != want {
		t.Errorf("payload = %s, want %s", got, want)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(inv.id) {
		t.Errorf("request ID %q is not UUID-shaped", inv.id)
	}
	if got, want := inv.header.Get("Lambda-Runtime-Invoked-Function-Arn"), "arn:aws:lambda:eu-west-1:111122223333:function:notifier"; got != want {
		t.Errorf("function ARN = %q, want %q", got, want)
	}
	if got := inv.header.Get("Lambda-Runtime-Trace-Id"); !regexp.MustCompile(`^Root=1-[0-9a-f]{8}-[0-9a-f]{24};Sampled=0$`).MatchString(got) {
		t.Errorf("trace ID = %q, want an X-Ray trace header", got)
	}
	ms, err := strconv.ParseInt(inv.header.Get("Lambda-Runtime-Deadline-Ms"), 10, 64)
	if deadline := time.UnixMilli(ms); err != nil || deadline.Before(before.Add(4*time.Second)) || deadline.After(time.Now().Add(5*time.Second)) {
		t.Errorf("deadline header %q is not about 5 s from now", inv.header.Get("Lambda-Runtime-Deadline-Ms"))
	}

	if got := rt.post("invocation/"+inv.id+"/response", []byte(`{"ok":true}`), nil); got != http.StatusAccepted {
		t.Errorf("POST response status = %d, want 202", got)
	}
	answered := time.Now()
	o := await(t, ctx, outcome)
	if diff := cmp.Diff(invokeOutcome{result: Result{Payload: []byte(`{"ok":true}`)}}, o, cmp.AllowUnexported(invokeOutcome{}), ignoreDuration); diff != "" {
		t.Errorf("Invoke (-want +got):\n%s", diff)
	}
	// Handed out after Invoke began, complete before the POST was answered.
	if d := o.result.Duration; d <= 0 || d > answered.Sub(before) {
		t.Errorf("Duration = %v, want above 0 and at most %v (the event handed out to the result posted)", d, answered.Sub(before))
	}
	if o.result.Failed() {
		t.Error("Failed() = true for a response")
	}
	if got := rt.post("invocation/"+inv.id+"/response", []byte(`{}`), nil); got != http.StatusBadRequest {
		t.Errorf("second POST response status = %d, want 400", got)
	}
}

func TestInvokeReportsFunctionErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		header string
		want   Result
	}{
		{
			name: "aws-lambda-go document",
			body: `{"errorMessage":"approvers is required","errorType":"InvalidApprovalRequest"}`,
			want: Result{ErrorType: "InvalidApprovalRequest", ErrorMessage: "approvers is required"},
		},
		{
			name:   "type in header only",
			body:   `{"errorMessage":"boom"}`,
			header: "Runtime.Crash",
			want:   Result{ErrorType: "Runtime.Crash", ErrorMessage: "boom"},
		},
		{
			name:   "document wins over header",
			body:   `{"errorMessage":"m","errorType":"FromBody"}`,
			header: "FromHeader",
			want:   Result{ErrorType: "FromBody", ErrorMessage: "m"},
		},
		{
			name: "not JSON",
			body: `segfault`,
			want: Result{ErrorType: "Unhandled"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, Options{})
			rt := newRawRuntime(t, s)
			ctx := testContext(t)

			outcome := invokeAsync(ctx, s, []byte(`{}`))
			inv, err := rt.next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			header := http.Header{}
			if tt.header != "" {
				header.Set("Lambda-Runtime-Function-Error-Type", tt.header)
			}
			if got := rt.post("invocation/"+inv.id+"/error", []byte(tt.body), header); got != http.StatusAccepted {
				t.Errorf("POST error status = %d, want 202", got)
			}
			o := await(t, ctx, outcome)
			if o.err != nil {
				t.Fatalf("Invoke: %v", o.err)
			}
			tt.want.Payload = []byte(tt.body)
			if diff := cmp.Diff(tt.want, o.result, ignoreDuration); diff != "" {
				t.Errorf("Result (-want +got):\n%s", diff)
			}
			if !o.result.Failed() {
				t.Error("Failed() = false for a function error")
			}
			if o.result.Duration <= 0 {
				t.Errorf("Duration = %v for a function error the runtime posted, want above 0", o.result.Duration)
			}
		})
	}
}

func TestConcurrentInvocationsGetTheirOwnResults(t *testing.T) {
	t.Parallel()
	s := start(t, Options{})
	rt := newRawRuntime(t, s)
	ctx, cancel := context.WithCancel(testContext(t))

	var loop sync.WaitGroup
	loop.Go(func() { // an echo function
		for {
			inv, err := rt.next(ctx)
			if err != nil {
				return
			}
			rt.post("invocation/"+inv.id+"/response", inv.body, nil)
		}
	})
	t.Cleanup(func() { cancel(); loop.Wait() })

	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			want := fmt.Sprintf(`{"n":%d}`, i)
			r, err := s.Invoke(ctx, []byte(want))
			if err != nil || string(r.Payload) != want {
				errs <- fmt.Errorf("Invoke(%s) = %s, %v", want, r.Payload, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestWaitNext(t *testing.T) {
	t.Parallel()
	s := start(t, Options{})
	rt := newRawRuntime(t, s)
	ctx := testContext(t)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.WaitNext(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitNext before any poll = %v, want context.Canceled", err)
	}

	pollCtx, stopPoll := context.WithCancel(ctx)
	polled := make(chan error, 1)
	go func() { _, err := rt.next(pollCtx); polled <- err }()
	if err := s.WaitNext(ctx); err != nil {
		t.Fatalf("WaitNext: %v", err)
	}
	if err := s.WaitNext(ctx); err != nil {
		t.Fatalf("second WaitNext: %v", err)
	}
	stopPoll()
	<-polled
}

func TestInitErrorFailsWaitNextAndInvocations(t *testing.T) {
	t.Parallel()
	s := start(t, Options{})
	rt := newRawRuntime(t, s)
	ctx := testContext(t)

	header := http.Header{"Lambda-Runtime-Function-Error-Type": {"Runtime.ConfigError"}}
	if got := rt.post("init/error", []byte(`{"errorMessage":"APPROVALS_TABLE is not set"}`), header); got != http.StatusAccepted {
		t.Fatalf("POST init/error status = %d, want 202", got)
	}
	if err := s.WaitNext(ctx); err == nil || !strings.Contains(err.Error(), "Runtime.ConfigError") {
		t.Errorf("WaitNext = %v, want the init error", err)
	}
	r, err := s.Invoke(ctx, []byte(`{}`))
	want := Result{Payload: []byte(`{"errorMessage":"APPROVALS_TABLE is not set"}`), ErrorType: "Runtime.ConfigError", ErrorMessage: "APPROVALS_TABLE is not set"}
	if diff := cmp.Diff(want, r); err != nil || diff != "" {
		t.Errorf("Invoke = %v (-want +got):\n%s", err, diff)
	}
}

func TestInvokeTimesOut(t *testing.T) {
	t.Parallel()
	s := start(t, Options{Timeout: 50 * time.Millisecond})
	rt := newRawRuntime(t, s)
	ctx := testContext(t)

	outcome := invokeAsync(ctx, s, []byte(`{}`))
	inv, err := rt.next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	o := await(t, ctx, outcome)
	if o.err != nil || o.result.ErrorType != "Sandbox.Timedout" || !strings.Contains(o.result.ErrorMessage, "Task timed out after 0.05 seconds") {
		t.Errorf("Invoke = %+v, %v; want a Sandbox.Timedout result", o.result, o.err)
	}
	// The late result is accepted and dropped, so a real runtime carries on.
	if got := rt.post("invocation/"+inv.id+"/response", []byte(`{}`), nil); got != http.StatusAccepted {
		t.Errorf("late POST response status = %d, want 202", got)
	}
}

func TestInvokeCallerGivesUpBeforeDelivery(t *testing.T) {
	t.Parallel()
	s := start(t, Options{})
	rt := newRawRuntime(t, s)
	ctx := testContext(t)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Invoke(cancelled, []byte(`{"n":1}`)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Invoke with a cancelled context = %v, want context.Canceled", err)
	}
	outcome := invokeAsync(ctx, s, []byte(`{"n":2}`))
	inv, err := rt.next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(inv.body), `{"n":2}`; got != want {
		t.Errorf("the runtime got %s, want %s (the abandoned invocation must not be delivered)", got, want)
	}
	rt.post("invocation/"+inv.id+"/response", nil, nil)
	await(t, ctx, outcome)
}

func TestCloseEndsLongPollsAndInvocations(t *testing.T) {
	t.Parallel()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	rt := newRawRuntime(t, s)
	ctx := testContext(t)

	polled := make(chan error, 1)
	go func() { _, err := rt.next(ctx); polled <- err }()
	if err := s.WaitNext(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-polled:
		if err == nil {
			t.Error("the long-poll returned an invocation after Close")
		}
	case <-ctx.Done():
		t.Fatal("the long-poll did not end at Close")
	}
	if _, err := s.Invoke(ctx, []byte(`{}`)); !errors.Is(err, ErrClosed) {
		t.Errorf("Invoke after Close = %v, want ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestInvokeRefusesOversizePayload(t *testing.T) {
	t.Parallel()
	s := start(t, Options{})
	if _, err := s.Invoke(testContext(t), make([]byte, MaxPayload+1)); err == nil {
		t.Error("Invoke accepted a payload over 6 MB")
	}
}
