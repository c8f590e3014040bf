package soak

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sfnapprovals/approvals/internal/faultproxy"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// report prints what was injected, what the people did, and the checks.
func (r *run) report(f Findings) {
	o, w := r.o, r.out
	slackCalls := r.inj.slackCalls.Load()
	fmt.Fprintf(w, "\nFaults injected (seed %d; rates as set by the flags):\n", o.Seed)
	row := func(name string, n int64, note string) {
		fmt.Fprintf(w, "  %-44s %6d  %s\n", name, n, note)
	}
	row("replicas killed (SIGKILL), then restarted", r.kills.Load(), fmt.Sprintf("every %s on average, down %s", o.KillEvery, o.RestartAfter))
	row("replicas replaced as a deploy does (SIGTERM)", r.terms.Load(), fmt.Sprintf("%.0f%% of replacements", 100*o.TermShare))
	row("replica processes started to replace them", r.restarts.Load(), "")
	row("replicas paused (SIGSTOP), then continued", r.freezes.Load(), fmt.Sprintf("every %s on average, for %s", o.FreezeEvery, o.FreezeFor))
	row("Socket Mode connections refreshed by Slack", r.disconnects.Load(), fmt.Sprintf("every %s on average", o.DisconnectEvery))
	row("Slack Web API 5xx (not applied)", r.inj.slack5xx.Load(), fmt.Sprintf("%.1f%% of %d calls", 100*o.Slack5xx, slackCalls))
	row("Slack Web API 429 with Retry-After 1-3 s", r.inj.slack429.Load(), fmt.Sprintf("%.1f%%", 100*o.Slack429))
	row("Slack Web API answers lost (applied)", r.inj.slackLost.Load(), fmt.Sprintf("%.1f%%", 100*o.SlackLostAnswer))
	row("events redelivered by Slack (unacked)", int64(r.redelivered()), "app_home_opened, at once / 1 min / 5 min")
	row("interactive envelopes Slack gave up on", int64(len(r.slack.Failures())), "the person saw an error (not redelivered)")
	sfnCalls := r.inj.sfnCalls.Load()
	row("Step Functions ThrottlingException", int64(r.sfnProxy.Count(faultproxy.Throttle)), fmt.Sprintf("%.1f%% of %d SendTask* calls", 100*o.SFNThrottle, sfnCalls))
	row("Step Functions 5xx (not applied)", int64(r.sfnProxy.Count(faultproxy.ServerError)), fmt.Sprintf("%.1f%%", 100*o.SFN5xx))
	row("Step Functions answers lost (applied)", int64(r.sfnProxy.Count(faultproxy.LostAnswer)), fmt.Sprintf("%.1f%%", 100*o.SFNLostAnswer))
	ddbCalls := r.inj.ddbCalls.Load()
	row("DynamoDB ProvisionedThroughputExceeded", int64(r.ddbProxy.Count(faultproxy.Throttle)), fmt.Sprintf("%.1f%% of %d requests", 100*o.DDBThrottle, ddbCalls))
	row("DynamoDB 5xx (not applied)", int64(r.ddbProxy.Count(faultproxy.ServerError)), fmt.Sprintf("%.1f%%", 100*o.DDB5xx))
	row("DynamoDB answers lost (applied)", int64(r.ddbProxy.Count(faultproxy.LostAnswer)), fmt.Sprintf("%.1f%%", 100*o.DDBLostAnswer))
	row("deadlines passed (task timed out)", r.deadlines.Load(), "as Step Functions times out the Task")

	var clicks, acked, errorsShown, retriesAsked, unanswered int
	for _, it := range r.plan {
		for _, a := range it.actions() {
			clicks++
			switch {
			case !a.acked:
				errorsShown++
			case strings.Contains(a.answer, "again"):
				retriesAsked++
			case !a.answered:
				unanswered++
			}
			if a.acked {
				acked++
			}
		}
	}
	fmt.Fprintf(w, "\nPeople:\n")
	row("clicks and form submissions", int64(clicks), fmt.Sprintf("%d acked", acked))
	row("  Slack showed an error (they tried again)", int64(errorsShown), "")
	row("  the bot asked them to try again", int64(retriesAsked), "")
	row("  acked, then nothing seen within patience", int64(unanswered), fmt.Sprintf("%s; they did not click again", patience))
	row("forms that never opened after an ack", r.modalsLost.Load(), "they clicked again (a trigger lasts 3 s)")
	row("App Homes opened", int64(len(r.homes)), fmt.Sprintf("reopened %d times when nothing showed", r.homesReopened.Load()))

	fmt.Fprintf(w, "\nChecks (each must be 0):\n")
	check := func(name string, n int) { fmt.Fprintf(w, "  %-62s %d\n", name, n) }
	check("executions never resumed (an acked click lost, or worse)", f.Lost)
	check("executions resumed otherwise than decided", f.Wrong)
	check("executions resumed more than once", f.ResumedTwice)
	check("request messages not final with their outcome, or with a button", f.NotFinal)
	check("requests posted more than once", f.PostedTwice)
	check("decision events missing from the audit trail", f.AuditMissing)
	check("audit events recorded more than once", f.AuditTwice)
	check("App Homes never published (opened three times)", f.HomesUnanswered)
	check("replicas that exited on their own", f.Crashed)
	check("data races reported by the replicas", f.Races)
	check(fmt.Sprintf("surviving replicas with more goroutines (slack %d)", o.GoroutineSlack), f.GoroutineGrowth)
	check(fmt.Sprintf("surviving replicas with more open files (slack %d)", o.FDSlack), f.FDGrowth)
	for _, u := range f.usage {
		if u.err != nil {
			fmt.Fprintf(w, "    %s: %v\n", u.r, u.err)
			continue
		}
		fmt.Fprintf(w, "    %s: goroutines %d → %d, open files %d → %d\n", u.r, u.before.goroutines, u.after.goroutines, u.before.fds, u.after.fds)
	}
	for _, c := range r.fleet.crashed() {
		fmt.Fprintf(w, "    %s exited on its own: %v (log %s)\n", c, c.exitErr, c.log)
	}
	if len(f.problems) == 0 {
		fmt.Fprintf(w, "\nNothing lost, doubled or left wrong.\n")
		return
	}
	fmt.Fprintf(w, "\n%d problems:\n", len(f.problems))
	for i, p := range f.problems {
		if i == 20 {
			fmt.Fprintf(w, "  … and %d more (see the timeline file)\n", len(f.problems)-i)
			break
		}
		fmt.Fprintf(w, "  %s %s: %s\n", p.it.id(), p.it.kind, p.what)
	}
	shown := map[*item]bool{}
	for _, p := range f.problems {
		if len(shown) == 5 {
			break
		}
		if shown[p.it] {
			continue
		}
		shown[p.it] = true
		fmt.Fprintln(w)
		r.writeItemTimeline(w, p.it)
	}
}

// redelivered counts the redeliveries of the App Home events.
func (r *run) redelivered() int {
	n := 0
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, h := range r.homes {
		for _, id := range h.envelopes {
			n += max(len(r.slack.Deliveries(id))-1, 0)
		}
	}
	return n
}

// writeTimeline writes every problem's timeline, then the run's events,
// to timeline.txt in the log folder.
func (r *run) writeTimeline(f Findings) {
	file, err := os.Create(filepath.Join(r.logDir, "timeline.txt"))
	if err != nil {
		return
	}
	defer file.Close()
	w := bufio.NewWriter(file)
	defer w.Flush()
	seen := map[*item]bool{}
	for _, p := range f.problems {
		if !seen[p.it] {
			seen[p.it] = true
			r.writeItemTimeline(w, p.it)
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w, "The run's events:")
	r.mu.Lock()
	events := slices.Clone(r.events)
	r.mu.Unlock()
	for _, e := range events {
		fmt.Fprintf(w, "  %s  %s %s\n", r.clock(e.at), e.what, strings.Join(e.subjects, " "))
	}
}

// line is one line of an approval's timeline.
type line struct {
	at   time.Time
	text string
}

// writeItemTimeline writes what happened to one approval, in time order:
// what its people did and saw, the faults that concerned it, the
// replacements and refreshes around it, and what the replicas logged of
// it.
func (r *run) writeItemTimeline(w io.Writer, it *item) {
	fmt.Fprintf(w, "Timeline of %s (%s): %s; the task is %s\n", it.id(), strings.TrimSpace(string(it.kind)+" "+it.variant), it.intent(), r.stack.SFN.Outcome(it.pending.Token).State)
	var lines []line
	var envelopes []string
	first, last := time.Time{}, time.Time{}
	for _, a := range it.actions() {
		where := "Slack's pick"
		if a.via >= 0 {
			where = fmt.Sprintf("socket #%d", a.via)
		}
		for _, d := range r.slack.Deliveries(a.envelope) {
			where = fmt.Sprintf("delivered to %s", r.replicaOf(d.Socket))
		}
		lines = append(lines, line{a.at, fmt.Sprintf("%s %s [%s, %s]: %s; then %s", a.who, a.what, a.envelope, where, a.result, orNone(a.answer))})
		if a.envelope != "" {
			envelopes = append(envelopes, a.envelope)
		}
		if first.IsZero() {
			first = a.at
		}
		last = a.at
	}
	if !it.deadlineAt.IsZero() {
		lines = append(lines, line{it.deadlineAt, "deadline"})
	}
	if first.IsZero() {
		first = r.start
		last = time.Now()
	}
	r.mu.Lock()
	for _, e := range r.events {
		mine := slices.Contains(e.subjects, it.id())
		near := len(e.subjects) == 0 && !e.at.Before(first.Add(-10*time.Second)) && !e.at.After(last.Add(90*time.Second))
		if mine || near {
			lines = append(lines, line{e.at, "soak: " + e.what})
		}
	}
	if it.givenUp != "" {
		lines = append(lines, line{last, it.givenUp})
	}
	r.mu.Unlock()
	for _, p := range []*faultproxy.Proxy{r.ddbProxy, r.sfnProxy} {
		for _, rec := range p.Records() {
			if slices.Contains(rec.Subjects, it.id()) {
				lines = append(lines, line{rec.At, fmt.Sprintf("fault: %s %s answered %s", rec.Service, rec.Op, rec.Kind)})
			}
		}
	}
	for _, rec := range r.inj.slackRecords() {
		if slices.Contains(rec.Subjects, it.id()) {
			lines = append(lines, line{rec.At, "fault: slack " + rec.Op})
		}
	}
	p := it.pending.Response
	if m, ok := r.slack.Message(p.Channel, p.TS); ok {
		versions := append(r.slack.History(p.Channel, p.TS), m)
		for i, v := range versions {
			at := v.Edited
			what := "edited to"
			if i == 0 {
				at, what = r.start, "posted"
				if t, err := strconv.ParseFloat(v.TS, 64); err == nil {
					at = time.UnixMicro(int64(t * 1e6))
				}
			}
			lines = append(lines, line{at, fmt.Sprintf("slack: the request message %s %q, %d buttons", what, v.Text, len(fakeslack.ButtonActions(v.Blocks)))})
		}
	}
	for _, reply := range r.slack.Replies(p.Channel, p.TS) {
		if t, err := strconv.ParseFloat(reply.TS, 64); err == nil {
			lines = append(lines, line{time.UnixMicro(int64(t * 1e6)), fmt.Sprintf("slack: thread reply %q", reply.Text)})
		}
	}
	lines = append(lines, r.logLines(it.id(), envelopes)...)
	slices.SortStableFunc(lines, func(a, b line) int { return a.at.Compare(b.at) })
	for _, l := range lines {
		fmt.Fprintf(w, "  %s  %s\n", r.clock(l.at), l.text)
	}
}

func orNone(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// clock is t as seconds since the run started.
func (r *run) clock(t time.Time) string {
	return fmt.Sprintf("%8.3fs %s", t.Sub(r.start).Seconds(), t.Format("15:04:05.000"))
}

// logLines are the replicas' log lines that name the approval or one of
// its envelopes, with the replica each came from.
func (r *run) logLines(id string, envelopes []string) []line {
	var out []line
	needles := append([]string{id}, envelopes...)
	for _, rep := range r.fleet.every() {
		b, err := os.ReadFile(rep.log)
		if err != nil {
			continue
		}
		for raw := range bytes.SplitSeq(b, []byte("\n")) {
			if !slices.ContainsFunc(needles, func(n string) bool { return bytes.Contains(raw, []byte(n)) }) {
				continue
			}
			var l map[string]any
			if json.Unmarshal(raw, &l) != nil {
				continue
			}
			at, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(l["time"]))
			delete(l, "time")
			delete(l, "service")
			msg := fmt.Sprint(l["msg"])
			delete(l, "msg")
			level := fmt.Sprint(l["level"])
			delete(l, "level")
			rest, _ := json.Marshal(l)
			out = append(out, line{at, fmt.Sprintf("%s: [%s] %s %s", rep, level, msg, rest)})
		}
	}
	return out
}
