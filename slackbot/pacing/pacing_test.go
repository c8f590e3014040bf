package pacing

import (
	"fmt"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// The load targets of issue 8, checked on the simulation: two replicas,
// four update workers each, 400 decisions arriving within 2 s, default
// pacing, Slack's limit modelled as the fake Slack applies it.
func TestPacingMeetsTheLoadTargetsInSimulation(t *testing.T) {
	tests := []struct {
		name     string
		limit    fakeslack.RateLimit
		maxDone  time.Duration
		maxCalls int
	}{
		// 20/s with bursts of 20: the floor is 19 s (20 at once, then 380 at 20/s).
		{"20/s, burst 20", fakeslack.RateLimit{Limit: 1200, Per: time.Minute, Burst: 20}, 21 * time.Second, 440},
		// Tier 3, 50 a minute: the floor is 7 minutes (the 8th window opens at 420 s).
		{"50/min", fakeslack.RateLimit{Limit: 50, Per: time.Minute}, 462 * time.Second, 440},
	}
	for _, tt := range tests {
		for _, latency := range []time.Duration{3 * time.Millisecond, 10 * time.Millisecond, 30 * time.Millisecond} {
			for seed := range 12 {
				t.Run(fmt.Sprintf("%s/%s/seed %d", tt.name, latency, seed), func(t *testing.T) {
					t.Parallel()
					r := simulate(simConfig{Replicas: 2, Workers: 4, Messages: 400, Arrive: 2 * time.Second,
						Latency: latency, Wake: 10 * time.Millisecond, Limit: tt.limit, Seed: uint64(seed)})
					if r.Done > tt.maxDone || r.Calls > tt.maxCalls {
						t.Errorf("all updated after %s with %d calls (%d 429s); want ≤ %s and ≤ %d calls",
							r.Done, r.Calls, r.Limited, tt.maxDone, tt.maxCalls)
					}
				})
			}
		}
	}
}

// Two replicas that never talk share the limit: the second one starts when
// the first already uses all of it, both have more work than the limit
// allows, and after a few minutes each gets about half.
func TestPacersConvergeToEqualShares(t *testing.T) {
	tests := []struct {
		name  string
		limit fakeslack.RateLimit
		join  time.Duration
		until time.Duration
		rate  float64 // the limit, calls per second
		share float64 // each replica's least share of the second half
	}{
		{"20/s, burst 20, second replica 20 s late", fakeslack.RateLimit{Limit: 1200, Per: time.Minute, Burst: 20}, 20 * time.Second, 5 * time.Minute, 20, 0.4},
		{"50/min, together", fakeslack.RateLimit{Limit: 50, Per: time.Minute}, 0, 10 * time.Minute, 50.0 / 60, 0.4},
		// In minute windows the first replica starts each one at full speed;
		// the newcomer catches up a little every window.
		{"50/min, second replica 20 s late", fakeslack.RateLimit{Limit: 50, Per: time.Minute}, 20 * time.Second, 10 * time.Minute, 50.0 / 60, 0.25},
	}
	for _, tt := range tests {
		for seed := range 3 {
			t.Run(fmt.Sprintf("%s/seed %d", tt.name, seed), func(t *testing.T) {
				t.Parallel()
				from := tt.until / 2
				r := simulate(simConfig{Replicas: 2, Workers: 4, Messages: 20_000, Arrive: time.Second,
					Join: []time.Duration{0, tt.join}, Latency: 5 * time.Millisecond, Limit: tt.limit,
					Seed: uint64(seed), Until: tt.until, From: from})
				got := r.Since[0] + r.Since[1]
				want := tt.rate * (tt.until - from).Seconds()
				if float64(got) < 0.95*want {
					t.Errorf("%d calls went through in the second half, want about %.0f (the limit)", got, want)
				}
				for i, n := range r.Since {
					if share := float64(n) / float64(got); share < tt.share || share > 1-tt.share {
						t.Errorf("replica %d got %d of %d (%.0f%%), want %.0f–%.0f%%", i, n, got, 100*share, 100*tt.share, 100-100*tt.share)
					}
				}
				if limited := float64(r.Limited) / float64(r.Calls); limited > 0.1 {
					t.Errorf("%d of %d calls were 429s, want at most 10%%", r.Limited, r.Calls)
				}
			})
		}
	}
}
