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
// the fake Slack, and reports the invocation latency percentiles (p50-ms,
// p99-ms, max-ms: the caller's view, the emulator's hop included) and the
// median of what Lambda would bill (billed-p50-ms: the event handed out to
// the result posted).
//
// Each iteration also does the invocation's store work alone, from this
// process, without the notifier, Slack or the Runtime API (floor: the
// Request and RecordMessage calls the notifier makes), before or after the
// invocation in turn, so that both see the same DynamoDB Local at the same
// moment: floor-p50-ms is its median, above-floor-p50-ms the median of
// each invocation less the floor beside it. ns/op counts both; cpu-ms/op
// is the notifier process's CPU per invocation (what stretches an
// invocation on a Lambda with a fraction of a vCPU).
func BenchmarkNotifierInvoke(b *testing.B) {
	s := newStack(b)
	s.start(b)
	floor := newFloor(s)
	for range warmUp {
		invoke(b, s, requestPayload(b, newToken(), nil))
		floor.once(b)
	}
	var took, billed, floors, above []time.Duration
	cpuBefore, cpuErr := s.proc.CPU()
	for i := 0; b.Loop(); i++ {
		payload := requestPayload(b, newToken(), nil)
		var f time.Duration
		if i%2 == 1 {
			f = floor.once(b)
		}
		start := time.Now()
		r := invoke(b, s, payload)
		t := time.Since(start)
		if r.Failed() {
			b.Fatalf("Invoke failed: %s: %s", r.ErrorType, r.ErrorMessage)
		}
		if i%2 == 0 {
			f = floor.once(b)
		}
		took, billed, floors, above = append(took, t), append(billed, r.Duration), append(floors, f), append(above, t-f)
	}
	cpuAfter, err := s.proc.CPU()
	if cpuErr == nil && err == nil {
		b.ReportMetric(float64(cpuAfter-cpuBefore)/float64(time.Millisecond)/float64(len(took)), "cpu-ms/op")
	}
	reportPercentiles(b, took)
	b.ReportMetric(median(billed), "billed-p50-ms")
	b.ReportMetric(median(floors), "floor-p50-ms")
	b.ReportMetric(median(above), "above-floor-p50-ms")
}

// floor does the DynamoDB Local work of one notifier invocation from the
// benchmark's own process: Request (the approval's transaction and its
// execution's check, as the notifier stores it), then RecordMessage.
type floor struct {
	service *workflow.Service
}

func newFloor(s *stack) floor {
	return floor{service: workflow.NewService(dynamo.New(harness.Admin, s.table), nil, nil)}
}

// once does it once for a new request (parsed before the clock starts) and
// returns how long the store calls took.
func (f floor) once(b *testing.B) time.Duration {
	b.Helper()
	req, err := workflow.ParseRequest(requestPayload(b, newToken(), nil))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	start := time.Now()
	a, _, err := f.service.Request(ctx, req)
	if err == nil {
		_, err = f.service.RecordMessage(ctx, a.ID, channel, "1700000000.000100")
	}
	took := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	return took
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

// median is the middle of took (sorted in place), in milliseconds.
func median(took []time.Duration) float64 {
	if len(took) == 0 {
		return 0
	}
	slices.Sort(took)
	return float64(took[(len(took)-1)/2]) / float64(time.Millisecond)
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
