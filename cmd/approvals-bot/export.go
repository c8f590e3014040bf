package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// exportRange reads -since and -until (RFC 3339; -until defaults to now)
// for -export-audit.
func exportRange(since, until string, now time.Time) (from, to time.Time, err error) {
	if since == "" {
		return from, to, fmt.Errorf("-export-audit needs -since, an RFC 3339 time such as 2026-11-01T00:00:00Z")
	}
	if from, err = time.Parse(time.RFC3339, since); err != nil {
		return from, to, fmt.Errorf("-since must be an RFC 3339 time such as 2026-11-01T00:00:00Z, not %q", since)
	}
	to = now
	if until != "" {
		if to, err = time.Parse(time.RFC3339, until); err != nil {
			return from, to, fmt.Errorf("-until must be an RFC 3339 time such as 2026-12-01T00:00:00Z, not %q", until)
		}
	}
	if !from.Before(to) {
		return from, to, fmt.Errorf("-since (%s) must be before -until (%s)", from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	return from, to, nil
}

// exportAudit writes every audit event from since to until (left out) to
// w as JSON lines, in time order, and returns how many it wrote.
func exportAudit(ctx context.Context, svc *workflow.Service, since, until time.Time, w io.Writer) (int, error) {
	out := bufio.NewWriter(w)
	enc := json.NewEncoder(out)
	n := 0
	err := svc.ExportAudit(ctx, since, until, func(e workflow.AuditEvent) error {
		n++
		return enc.Encode(e)
	})
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write the audit events: %w", ferr)
	}
	if err != nil {
		return n, fmt.Errorf("export the audit events from %s to %s: %w", since.Format(time.RFC3339), until.Format(time.RFC3339), err)
	}
	return n, nil
}
