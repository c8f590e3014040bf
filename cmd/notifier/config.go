package main

import (
	"fmt"
	"time"

	"github.com/sfnapprovals/approvals/internal/lambdaenv"
	"github.com/sfnapprovals/approvals/workflow"
)

// config is everything the notifier reads from its environment: what
// every Lambda function of the project reads (lambdaenv), and how long a
// record is kept.
type config struct {
	lambdaenv.Config
	Retention time.Duration // APPROVALS_RETENTION
	Locale    string        // APPROVALS_LOCALE: the language of requests without one
}

func loadConfig(getenv func(string) string) (config, error) {
	base, err := lambdaenv.Load(getenv)
	if err != nil {
		return config{}, err
	}
	c := config{Config: base, Retention: 90 * 24 * time.Hour}
	if v := getenv("APPROVALS_RETENTION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Hour {
			return c, fmt.Errorf("APPROVALS_RETENTION must be a duration of at least 1h such as 2160h, not %q", v)
		}
		c.Retention = d
	}
	if c.Locale, err = workflow.LocaleVar(getenv); err != nil {
		return c, err
	}
	return c, nil
}
