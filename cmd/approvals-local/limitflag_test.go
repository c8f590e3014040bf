package main

import (
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

func TestParseLimit(t *testing.T) {
	for spec, want := range map[string]fakeslack.RateLimit{
		"20/s,burst=20":   {Limit: 1200, Per: time.Minute, Burst: 20},
		"20/s":            {Limit: 1200, Per: time.Minute, Burst: 20},
		"50/min":          {Limit: 50, Per: time.Minute, Burst: 50},
		"50/min,burst=10": {Limit: 50, Per: time.Minute, Burst: 10},
	} {
		if got, err := parseLimit(spec); err != nil || got != want {
			t.Errorf("parseLimit(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
	for _, spec := range []string{"", "20", "20/h", "0/s", "-1/min", "x/s", "20/s,burst=0", "20/s,burst=x", "20/s,bursts=3"} {
		if _, err := parseLimit(spec); err == nil {
			t.Errorf("parseLimit(%q) accepted", spec)
		}
	}
}
