package pacing

import (
	"math"
	"time"
)

// Rate is a request budget: Events per Per on average, up to Burst at once.
type Rate struct {
	Events int
	Per    time.Duration
	Burst  int
}

func (r Rate) perSecond() float64 {
	if r.Events <= 0 || r.Per <= 0 {
		return 1
	}
	return float64(r.Events) / r.Per.Seconds()
}

// bucket is a token bucket. It is not safe for concurrent use.
type bucket struct {
	rate   float64 // tokens per second
	burst  float64
	tokens float64
	last   time.Time // when tokens was last brought up to date
}

func newBucket(r Rate) *bucket {
	burst := float64(max(r.Burst, 1))
	return &bucket{rate: r.perSecond(), burst: burst, tokens: burst}
}

// due brings the bucket up to date and says how long until it holds a
// whole token (0: it does).
func (b *bucket) due(now time.Time) time.Duration {
	if b.last.IsZero() {
		b.last = now
	}
	if now.After(b.last) {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
		b.last = now
	}
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration(math.Ceil((1 - b.tokens) / b.rate * float64(time.Second)))
}
