package sfnlocal

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func benchEngine(b *testing.B, integs ...taskIntegration) *Engine {
	b.Helper()
	e := New(Options{Integrations: integs})
	b.Cleanup(e.Close)
	return e
}

func benchMachine(b *testing.B, e *Engine, def string) string {
	b.Helper()
	sm, err := e.CreateStateMachine(context.Background(), CreateStateMachineInput{Name: "bench", Definition: def})
	if err != nil {
		b.Fatal(err)
	}
	return sm.StateMachineArn
}

func passChain(n int) string {
	var s strings.Builder
	s.WriteString(`{"StartAt":"S0","States":{`)
	for i := range n {
		if i > 0 {
			s.WriteString(",")
		}
		if i == n-1 {
			fmt.Fprintf(&s, `"S%d":{"Type":"Pass","End":true}`, i)
		} else {
			fmt.Fprintf(&s, `"S%d":{"Type":"Pass","Next":"S%d"}`, i, i+1)
		}
	}
	s.WriteString("}}")
	return s.String()
}

// BenchmarkPassChain runs executions of 100 Pass states and reports state
// transitions per second.
func BenchmarkPassChain(b *testing.B) {
	const states = 100
	e := benchEngine(b)
	sm := benchMachine(b, e, passChain(states))
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		out, err := e.StartExecution(ctx, StartExecutionInput{StateMachineArn: sm, Input: `{"k":"v"}`})
		if err != nil {
			b.Fatal(err)
		}
		if x, _ := e.WaitExecution(ctx, out.ExecutionArn); x.Status != StatusSucceeded {
			b.Fatal(x.Status)
		}
	}
	b.ReportMetric(float64(b.N*states)/b.Elapsed().Seconds(), "transitions/s")
}

// BenchmarkMap1000 runs an inline Map over 1,000 items.
func BenchmarkMap1000(b *testing.B) {
	e := benchEngine(b)
	sm := benchMachine(b, e, `{"StartAt":"M","States":{"M":{"Type":"Map","ItemProcessor":{"StartAt":"P","States":{
		"P":{"Type":"Pass","Parameters":{"v.$":"$"},"Next":"Q"},"Q":{"Type":"Pass","End":true}}},"End":true}}}`)
	items := make([]string, 1000)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	input := "[" + strings.Join(items, ",") + "]"
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		out, err := e.StartExecution(ctx, StartExecutionInput{StateMachineArn: sm, Input: input})
		if err != nil {
			b.Fatal(err)
		}
		if x, _ := e.WaitExecution(ctx, out.ExecutionArn); x.Status != StatusSucceeded {
			b.Fatal(x.Status, x.Cause)
		}
	}
	b.ReportMetric(float64(b.N*2000)/b.Elapsed().Seconds(), "transitions/s")
}

// BenchmarkPausedExecutions parks 10,000 executions on task tokens and
// reports the heap they hold each.
func BenchmarkPausedExecutions(b *testing.B) {
	const n = 10000
	for b.Loop() {
		b.StopTimer()
		calls := newTokenCatcherN(n)
		e := New(Options{Integrations: []taskIntegration{calls}})
		sm := benchMachine(b, e, approval(""))
		ctx := context.Background()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		goroutines := runtime.NumGoroutine()
		b.StartTimer()
		for i := range n {
			if _, err := e.StartExecution(ctx, StartExecutionInput{StateMachineArn: sm, Name: fmt.Sprint("x", i), Input: `{"requester":"ann","amount":100}`}); err != nil {
				b.Fatal(err)
			}
		}
		for range n {
			<-calls.calls
		}
		b.StopTimer()
		waitQuiet(e)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric((float64(after.HeapAlloc)-float64(before.HeapAlloc))/n, "bytes/execution")
		b.ReportMetric(float64(after.StackInuse)/n, "stack-bytes/execution")
		b.ReportMetric(float64(runtime.NumGoroutine()-goroutines), "goroutines")
		e.Close()
		waitQuiet(e) // the next round's baseline must not hold this round's executions
		b.StartTimer()
	}
}

// waitQuiet waits until the engine's goroutines have returned.
func waitQuiet(e *Engine) {
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	<-done
}

// BenchmarkCallbackLatency measures SendTaskSuccess until the next state's
// task is invoked, and reports the 99th percentile.
func BenchmarkCallbackLatency(b *testing.B) {
	calls := newTokenCatcherN(1)
	e := benchEngine(b, calls)
	sm := benchMachine(b, e, `{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","Next":"C"},
		"C":{"Type":"Choice","Choices":[{"Variable":"$.stop","IsPresent":true,"Next":"D"}],"Default":"T"},"D":{"Type":"Succeed"}}}`)
	ctx := context.Background()
	begin := func() (string, taskCall) {
		out, err := e.StartExecution(ctx, StartExecutionInput{StateMachineArn: sm})
		if err != nil {
			b.Fatal(err)
		}
		return out.ExecutionArn, <-calls.calls
	}
	arn, call := begin()
	var lat []time.Duration
	laps := 0
	b.ResetTimer()
	for b.Loop() {
		// A lap records 8 events: a new execution long before the history
		// cap of 25,000 ends this one.
		if laps++; laps == 2000 {
			b.StopTimer()
			if _, err := e.StopExecution(ctx, StopExecutionInput{ExecutionArn: arn}); err != nil {
				b.Fatal(err)
			}
			arn, call = begin()
			laps = 0
			b.StartTimer()
		}
		start := time.Now()
		if err := e.SendTaskSuccess(ctx, SendTaskSuccessInput{TaskToken: call.TaskToken, Output: `{"ok":true}`}); err != nil {
			b.Fatal(err)
		}
		call = <-calls.calls
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}

// BenchmarkStopReleasesCPU measures how long an execution busy in a
// JSONata evaluation keeps the CPU after StopExecution: each op starts an
// execution whose Output is a $distinct of 200,000 numbers (about a
// minute of comparisons), lets it run, stops it and times StopExecution
// until Close has seen every goroutine of the engine return.
func BenchmarkStopReleasesCPU(b *testing.B) {
	const def = `{"QueryLanguage":"JSONata","StartAt":"P","States":{"P":{"Type":"Pass","Output":"{% $count($distinct([1..200000])) %}","End":true}}}`
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := New(Options{})
		sm := benchMachine(b, e, def)
		out, err := e.StartExecution(ctx, StartExecutionInput{StateMachineArn: sm})
		if err != nil {
			b.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			h, err := e.GetExecutionHistory(ctx, GetExecutionHistoryInput{ExecutionArn: out.ExecutionArn})
			if err != nil {
				b.Fatal(err)
			}
			if len(h.Events) >= 2 {
				break
			}
			if time.Now().After(deadline) {
				b.Fatal("the Pass state was never entered")
			}
			runtime.Gosched()
		}
		time.Sleep(20 * time.Millisecond) // let the evaluation reach $distinct; this is the load, not a synchronisation
		b.StartTimer()
		if _, err := e.StopExecution(ctx, StopExecutionInput{ExecutionArn: out.ExecutionArn}); err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}
