package pacing

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/slack-go/slack"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newTestPacer(ceiling Rate) (*Pacer, *fakeClock) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	pc := New(ceiling)
	pc.now = clock.now
	return pc, clock
}

// send lets n calls through at once and reports them all answered.
func send(t *testing.T, pc *Pacer, n int, err error) {
	t.Helper()
	for i := range n {
		sent, d := pc.take()
		if d != 0 {
			t.Fatalf("call %d of %d waits %s", i+1, n, d)
		}
		pc.Done(sent, err)
	}
}

func limitedFor(d time.Duration) error { return &slack.RateLimitedError{RetryAfter: d} }

func TestPacerStartsUnpaced(t *testing.T) {
	pc, _ := newTestPacer(Rate{})
	send(t, pc, 1000, nil)
	if r := pc.Rate(); !math.IsInf(r, 1) {
		t.Errorf("Rate = %v, want +Inf before any 429", r)
	}
}

func TestPacer429PausesAndLowersBelowTheAchievedRate(t *testing.T) {
	pc, clock := newTestPacer(Rate{})
	for range 20 { // 20 calls a second for 10 s
		send(t, pc, 10, nil)
		clock.advance(500 * time.Millisecond)
	}
	sent, _ := pc.take()
	if _, limited := pc.Done(sent, limitedFor(3*time.Second)); !limited {
		t.Fatal("a 429 was not reported as one")
	}
	if r := pc.Rate(); r != 0 {
		t.Errorf("Rate while paused = %v, want 0", r)
	}
	if _, d := pc.take(); d != 3*time.Second {
		t.Errorf("a caller waits %s, want the Retry-After, 3s", d)
	}
	clock.advance(3 * time.Second)
	if r, want := pc.Rate(), 0.85*200/10.0; math.Abs(r-want) > 0.01 {
		t.Errorf("Rate after the pause = %v, want 85%% of the 20/s achieved, %v", r, want)
	}
	if _, d := pc.take(); d != 0 {
		t.Errorf("first call after the pause waits %s", d)
	}
	if _, d := pc.take(); d < 50*time.Millisecond || d > 60*time.Millisecond {
		t.Errorf("second call waits %s, want one interval at 17/s (59ms)", d)
	}
}

func TestPacerLowersOncePerEpisode(t *testing.T) {
	pc, clock := newTestPacer(Rate{})
	send(t, pc, 50, nil)
	clock.advance(time.Second)
	var inFlight []time.Time
	for range 4 {
		sent, _ := pc.take()
		inFlight = append(inFlight, sent)
	}
	pc.Done(inFlight[0], limitedFor(time.Second))
	after := pc.rate
	for _, sent := range inFlight[1:] {
		pc.Done(sent, limitedFor(2*time.Second))
	}
	if pc.rate != after {
		t.Errorf("429s of calls already in flight lowered the rate again: %v, then %v", after, pc.rate)
	}
	if _, d := pc.take(); d != 2*time.Second {
		t.Errorf("wait = %s; the latest, longest Retry-After (2s) should hold", d)
	}
}

func TestPacerIgnoresAWindowSpentByOthers(t *testing.T) {
	pc, clock := newTestPacer(Rate{})
	send(t, pc, 20, nil)
	sent, _ := pc.take()
	pc.Done(sent, limitedFor(time.Second))
	clock.advance(time.Second)
	before := pc.rate

	sent, _ = pc.take() // the first call after the pause meets a spent window
	pc.Done(sent, limitedFor(5*time.Second))
	if pc.rate != before {
		t.Errorf("rate went from %v to %v although nothing went through since the pause", before, pc.rate)
	}
	if _, d := pc.take(); d != 5*time.Second {
		t.Errorf("wait = %s, want the pause all the same", d)
	}
}

func TestPacerProbesUpOnlyWhileHoldingCallersBack(t *testing.T) {
	pc, clock := newTestPacer(Rate{})
	send(t, pc, 10, nil)
	sent, _ := pc.take()
	pc.Done(sent, limitedFor(time.Second))
	clock.advance(time.Second)
	start := pc.rate // 85% of 10 calls in the first 100 ms: 85/s

	call := func() { // a caller that waits its turn
		at, d := pc.take()
		if d > 0 {
			clock.advance(d)
			at, d = pc.take()
		}
		if d != 0 {
			t.Fatalf("no call after waiting: %s more", d)
		}
		pc.Done(at, nil)
	}
	for range 50 { // callers keep asking: the pace is the bottleneck
		call()
	}
	held := pc.rate
	if held <= start {
		t.Fatalf("rate %v did not grow from %v while callers waited", held, start)
	}

	clock.advance(20 * time.Second) // nobody waiting: no news about the limit
	call()
	if pc.rate != held {
		t.Errorf("rate grew from %v to %v while nobody was held back", held, pc.rate)
	}
}

func TestPacerForgetsAfterAQuietMinute(t *testing.T) {
	pc, clock := newTestPacer(Rate{})
	send(t, pc, 5, nil)
	sent, _ := pc.take()
	pc.Done(sent, limitedFor(30*time.Second))
	clock.advance(30*time.Second + 59*time.Second)
	if r := pc.Rate(); math.IsInf(r, 1) {
		t.Fatal("forgot within a minute of the pause ending")
	}
	clock.advance(time.Second)
	send(t, pc, 100, nil)
	if r := pc.Rate(); !math.IsInf(r, 1) {
		t.Errorf("Rate = %v after a quiet minute, want unpaced again", r)
	}
}

func TestPacerNeverExceedsTheCeiling(t *testing.T) {
	pc, clock := newTestPacer(Rate{Events: 60, Per: time.Minute, Burst: 3})
	if r := pc.Rate(); r != 1 {
		t.Errorf("Rate = %v, want the ceiling, 1/s", r)
	}
	send(t, pc, 3, nil)
	if _, d := pc.take(); d != time.Second {
		t.Errorf("after the ceiling's burst: wait %s, want 1s", d)
	}
	sent := clock.t
	pc.Done(sent, limitedFor(2*time.Second))
	clock.advance(2 * time.Second)
	if _, d := pc.take(); d != 0 {
		t.Errorf("after the pause: wait %s", d)
	}
	if _, d := pc.take(); d != time.Second {
		t.Errorf("then: wait %s, want 1s: no burst after a pause", d)
	}
}

func TestPacerCountsOnlySlackAnswers(t *testing.T) {
	pc, _ := newTestPacer(Rate{})
	sent, _ := pc.take()
	if _, limited := pc.Done(sent, errors.New("dial tcp: connection refused")); limited {
		t.Error("a network error was taken for a 429")
	}
	if len(pc.oks) != 0 {
		t.Error("a network error counted as a call that went through")
	}
	pc.Done(sent, slack.SlackErrorResponse{Err: "message_not_found"})
	if len(pc.oks) != 1 {
		t.Error("Slack's refusal, an answer within the limit, was not counted")
	}
	if _, limited := pc.Done(sent, slack.StatusCodeError{Code: 429, Status: "429 Too Many Requests"}); !limited {
		t.Error("a 429 without Retry-After was not taken for one")
	}
}

func TestKeyedPacerDropsOnlyIdlePacers(t *testing.T) {
	k := NewKeyed(Rate{Events: 1, Per: time.Second, Burst: 3})
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	busy := k.Get("C0")
	busy.now = clock.now
	sent, _ := busy.take()
	busy.Done(sent, limitedFor(time.Minute))
	for i := range 300 {
		k.Get(string(rune('a'+i%26)) + string(rune('A'+i/26)))
	}
	if k.Get("C0") != busy {
		t.Error("a paused channel's pacer was dropped")
	}
}

func TestPacerHeldCallersAskAgainAsTheRateGrows(t *testing.T) {
	pc, clock := newTestPacer(Rate{})
	send(t, pc, 1, nil)
	clock.advance(10 * time.Second) // one success in 10 s: 0.1/s achieved
	sent, _ := pc.take()
	pc.Done(sent, limitedFor(time.Second))
	clock.advance(time.Second)
	send(t, pc, 1, nil) // the first call after the pause

	_, d := pc.take()
	if d != recheck {
		t.Fatalf("wait = %s; at %.3f/s the next call is far off, but a held caller should ask again after %s", d, pc.rate, recheck)
	}
	clock.advance(d)
	if _, d := pc.take(); d != 0 {
		t.Errorf("after a second of holding callers back the pace still waits %s (rate %.2f/s)", d, pc.rate)
	}
}
