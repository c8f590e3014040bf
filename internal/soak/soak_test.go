package soak

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// TestSoak is `make soak` at a small size, with the race detector in the
// replicas when the test has it (make test): every fault at its default
// rate, replacements twice as often, and every count must be zero.
func TestSoak(t *testing.T) {
	t.Parallel()
	o := Defaults()
	o.Approvals, o.WarmUp, o.Duration, o.HomeOpens = 40, 3, 20*time.Second, 6
	o.KillEvery = 5 * time.Second
	o.Settle = 2 * time.Minute
	o.Seed = 20261202
	o.Race = raceEnabled
	var out bytes.Buffer
	o.Out = &out
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	f, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("the soak could not run: %v\n%s", err, out.String())
	}
	if f.Total() != 0 {
		t.Errorf("the soak found %d problems:\n%s", f.Total(), out.String())
		return
	}
	t.Logf("\n%s", out.String())
}
