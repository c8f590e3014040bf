package slackbot

import (
	"context"
	"sync"
	"testing"
	"time"
)

func (p *pool) workers() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running
}

// waitPool waits until cond holds, failing the test after 10 s.
func waitPool(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestPoolStartsWorkersForWorkOnlyUpToItsLimit(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := newPool(nil)
	done := p.run(ctx, 4)
	if n := p.workers(); n != 0 {
		t.Fatalf("%d workers before any work, want 0", n)
	}
	release := make(chan struct{})
	var mu sync.Mutex
	running, most, finished := 0, 0, 0
	for range 20 {
		p.push(job{run: func(context.Context) {
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			<-release
			mu.Lock()
			running--
			finished++
			mu.Unlock()
		}})
	}
	waitPool(t, "4 jobs running", func() bool { mu.Lock(); defer mu.Unlock(); return running == 4 })
	if n := p.workers(); n != 4 {
		t.Errorf("%d workers for 20 jobs with a limit of 4", n)
	}
	close(release)
	waitPool(t, "every job finished and no worker left", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return finished == 20 && p.workers() == 0
	})
	if most != 4 {
		t.Errorf("at most %d jobs ran at once, want 4", most)
	}
	select {
	case <-done:
		t.Fatal("done before close")
	default:
	}
	p.push(job{run: func(context.Context) { mu.Lock(); finished++; mu.Unlock() }}) // after idling, work starts a worker again
	p.close()
	<-done
	if queued, interrupted := p.leftovers(); finished != 21 || len(queued) != 0 || len(interrupted) != 0 {
		t.Errorf("finished %d, leftovers %d queued %d interrupted", finished, len(queued), len(interrupted))
	}
}

func TestPoolRunsWorkQueuedBeforeRun(t *testing.T) {
	t.Parallel()
	p := newPool(nil)
	var mu sync.Mutex
	order := []int{}
	for i := range 3 {
		p.push(job{run: func(context.Context) { mu.Lock(); order = append(order, i); mu.Unlock() }})
	}
	p.pushFront(job{run: func(context.Context) { mu.Lock(); order = append(order, -1); mu.Unlock() }})
	p.close()
	<-p.run(context.Background(), 1)
	if len(order) != 4 || order[0] != -1 || order[3] != 2 {
		t.Errorf("ran %v, want the front job first, then 0 1 2", order)
	}
}

func TestPoolCancelledLeavesQueuedAndInterruptedWork(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	p := newPool(nil)
	done := p.run(ctx, 1)
	started := make(chan struct{})
	p.push(job{run: func(ctx context.Context) { close(started); <-ctx.Done() }})
	p.push(job{run: func(context.Context) { t.Error("a queued job ran after the context ended") }})
	<-started
	cancel()
	<-done
	p.push(job{run: func(context.Context) { t.Error("a job pushed after the end ran") }})
	queued, interrupted := p.leftovers()
	if len(queued) != 2 || len(interrupted) != 1 {
		t.Errorf("leftovers: %d queued, %d interrupted; want 2 and 1", len(queued), len(interrupted))
	}
	if n := p.workers(); n != 0 {
		t.Errorf("%d workers after the end", n)
	}
}

func TestPoolEndsAtOnceWhenCancelledIdle(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	p := newPool(nil)
	done := p.run(ctx, 2)
	cancel()
	<-done
}

func TestPoolSurvivesAPanickingJob(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var panics []any
	p := newPool(func(r any) { mu.Lock(); panics = append(panics, r); mu.Unlock() })
	ran := false
	p.push(job{run: func(context.Context) { panic("boom") }})
	p.push(job{run: func(context.Context) { ran = true }})
	p.close()
	<-p.run(context.Background(), 1)
	if len(panics) != 1 || panics[0] != "boom" || !ran {
		t.Errorf("panics %v, second job ran: %v", panics, ran)
	}
}
