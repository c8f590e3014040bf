package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// parseLimit reads a rate limit such as "20/s,burst=20" or "50/min" into
// the fake Slack's model of Slack's limits: minute windows with a burst
// allowance. "N/s" allows 60·N calls a minute, "N/min" N; at most burst at
// once (default N), coming back evenly.
func parseLimit(spec string) (fakeslack.RateLimit, error) {
	bad := fmt.Errorf("rate limit %q: want N/s or N/min, optionally followed by ,burst=B (like 20/s,burst=20 or 50/min)", spec)
	rate, burstPart, hasBurst := strings.Cut(strings.TrimSpace(spec), ",")
	count, unit, ok := strings.Cut(rate, "/")
	n, err := strconv.Atoi(count)
	if !ok || err != nil || n <= 0 {
		return fakeslack.RateLimit{}, bad
	}
	perMinute := n
	switch unit {
	case "s":
		perMinute = 60 * n
	case "min":
	default:
		return fakeslack.RateLimit{}, bad
	}
	burst := n
	if hasBurst {
		v, ok := strings.CutPrefix(strings.TrimSpace(burstPart), "burst=")
		if burst, err = strconv.Atoi(v); !ok || err != nil || burst <= 0 {
			return fakeslack.RateLimit{}, bad
		}
	}
	return fakeslack.RateLimit{Limit: perMinute, Per: time.Minute, Burst: burst}, nil
}
