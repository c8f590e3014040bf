package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/internal/lambdaruntime"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
)

// warmUp is how many untimed invocations precede the timed ones, so the
// numbers show a warm DynamoDB Local (a JVM) rather than its JIT warm-up.
const warmUp = 200

// BenchmarkNotifierInvoke drives the real binary through the Runtime API
// emulator with valid requests (new task tokens) against DynamoDB Local and
// the fake Slack, and reports the invocation latency percentiles.
func BenchmarkNotifierInvoke(b *testing.B) {
	s := newStack(b)
	s.start(b)
	for range warmUp {
		invoke(b, s, requestPayload(b, newToken(), nil))
	}
	var took []time.Duration
	for b.Loop() {
		payload := requestPayload(b, newToken(), nil)
		start := time.Now()
		r := invoke(b, s, payload)
		took = append(took, time.Since(start))
		if r.Failed() {
			b.Fatalf("Invoke failed: %s: %s", r.ErrorType, r.ErrorMessage)
		}
	}
	reportPercentiles(b, took)
}

// BenchmarkNotifierRetry measures a Lambda retry: the same token again,
// answered from the store without posting.
func BenchmarkNotifierRetry(b *testing.B) {
	s := newStack(b)
	s.start(b)
	payload := requestPayload(b, newToken(), nil)
	invoke(b, s, payload)
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		r := invoke(b, s, payload)
		took = append(took, time.Since(start))
		if r.Failed() {
			b.Fatalf("Invoke failed: %s: %s", r.ErrorType, r.ErrorMessage)
		}
	}
	reportPercentiles(b, took)
}

// BenchmarkColdStart measures process start to the first /next poll: the
// init phase Lambda bills on a cold start (without the sandbox's own start).
func BenchmarkColdStart(b *testing.B) {
	s := newStack(b)
	var took []time.Duration
	for b.Loop() {
		rt, err := lambdaruntime.Start()
		if err != nil {
			b.Fatal(err)
		}
		env := s.env(b)
		env["AWS_LAMBDA_RUNTIME_API"] = rt.Addr()
		start := time.Now()
		p := harness.Start(b, env)
		ctx, cancel := p.Context(30 * time.Second)
		err = rt.WaitNext(ctx)
		took = append(took, time.Since(start))
		cancel()
		p.Stop()
		_ = rt.Close()
		if err != nil {
			b.Fatalf("WaitNext: %v\n%s", err, p.Output())
		}
	}
	reportPercentiles(b, took)
}

func reportPercentiles(b *testing.B, took []time.Duration) {
	b.Helper()
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	at := func(q float64) float64 {
		return float64(took[int(q*float64(len(took)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(at(1), "max-ms")
}

// BenchmarkStoreFloor does the DynamoDB Local work of one notifier
// invocation (Create, then SetMessage) without the notifier, Slack or the
// Runtime API: the floor under BenchmarkNotifierInvoke.
func BenchmarkStoreFloor(b *testing.B) {
	s := newStack(b)
	service := workflow.NewService(dynamo.New(harness.Admin, s.table), nil, nil)
	ctx := context.Background()
	var took []time.Duration
	for b.Loop() {
		req, err := workflow.ParseRequest(requestPayload(b, newToken(), nil))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		a, _, err := service.Request(ctx, req)
		if err == nil {
			_, err = service.RecordMessage(ctx, a.ID, channel, "1700000000.000100")
		}
		took = append(took, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
	}
	reportPercentiles(b, took)
}
