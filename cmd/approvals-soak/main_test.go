package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/internal/soak"
)

func TestFlags(t *testing.T) {
	t.Parallel()
	o, err := parseFlags([]string{"-approvals", "20", "-seed", "7", "-kill-every", "3s", "-ddb-throttle", "0.1", "-mix", "approve=50,quorum=50"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := soak.Defaults()
	want.Approvals, want.Seed, want.KillEvery, want.DDBThrottle = 20, 7, 3*time.Second, 0.1
	if o.Approvals != want.Approvals || o.Seed != want.Seed || o.KillEvery != want.KillEvery || o.DDBThrottle != want.DDBThrottle ||
		o.Slack5xx != want.Slack5xx || o.Mix.String() != "approve=50,reject=0,revise=0,quorum=50,handover=0,double=0,deadline=0" {
		t.Errorf("options = %+v", o)
	}
}

func TestBadFlagsChangeNothing(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"share above 1":   {"-slack-5xx", "2"},
		"mix not 100":     {"-mix", "approve=50"},
		"unknown kind":    {"-mix", "approve=50,vote=50"},
		"one replica":     {"-replicas", "1"},
		"an argument":     {"now"},
		"not a duration":  {"-duration", "soon"},
		"short settle":    {"-settle", "10s"},
		"too many kills":  {"-kill-every", "100ms"},
		"all survive":     {"-survivors", "3"},
		"negative opens":  {"-home-opens", "-1"},
		"tiny sweep":      {"-sweep-interval", "10ms"},
		"unknown flag":    {"-chaos"},
		"negative warmup": {"-warm-up", "-2"},
		"long freeze":     {"-freeze-for", "40s"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), args, &stdout, &stderr)
			if err == nil {
				t.Fatalf("run(%q) succeeded", args)
			}
			if stdout.Len() != 0 {
				t.Errorf("a bad flag started a run: %s", stdout.String())
			}
		})
	}
}

func TestHelpListsEveryRate(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, &bytes.Buffer{}, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"-kill-every", "-freeze-every", "-freeze-for", "-term-share", "-restart-after", "-disconnect-every", "-slack-5xx", "-slack-429",
		"-slack-lost-answer", "-sfn-throttle", "-sfn-5xx", "-sfn-lost-answer", "-ddb-throttle", "-ddb-5xx", "-ddb-lost-answer", "-mix", "-seed"} {
		if !strings.Contains(stderr.String(), flag+" ") {
			t.Errorf("-h does not list %s", flag)
		}
	}
}
