package slackbot

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/internal/metrics"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
)

// measured is a bot whose metrics go to a registry of its own, and whose
// Slack client is counted like the real one's.
type measured struct {
	*runningBot
	reg *metrics.Registry
	m   *Metrics
}

func (h *harness) startMeasuredBot(cfg Config) measured {
	h.t.Helper()
	reg := metrics.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		h.t.Fatal(err)
	}
	cfg.Metrics = m
	hc := newHTTPClient(5*time.Second, openBackoff{Base: 20 * time.Millisecond, Max: 200 * time.Millisecond, Reset: time.Second})
	hc.Transport = m.SlackTransport(hc.Transport)
	want := h.slack.Connections() + 1
	rb := h.startBotWith(cfg, h.svc, h.api(hc))
	h.waitFor("bot connected", func() bool { return h.slack.Connections() >= want })
	return measured{runningBot: rb, reg: reg, m: m}
}

// value is the value of the series name{labels} (a counter, a gauge, or a
// histogram's sample count), 0 when the series does not exist.
func (ms measured) value(t *testing.T, name string, labels ...string) float64 {
	t.Helper()
	for _, m := range gather(t, ms.reg)[name].GetMetric() {
		if matches(m, labels) {
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue()
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return 0
}

// gather reads reg as a Prometheus server does: its text, parsed by
// Prometheus's own parser.
func gather(t *testing.T, reg *metrics.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	var b bytes.Buffer
	if err := reg.Write(bufio.NewWriter(&b)); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	families, err := p.TextToMetricFamilies(&b)
	if err != nil {
		t.Fatal(err)
	}
	return families
}

func matches(m *dto.Metric, labels []string) bool {
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			found++
		}
	}
	return found == len(want)
}

func (h *harness) waitValue(ms measured, what string, cond func() bool) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-tick.C:
		case <-ctx.Done():
			h.t.Fatalf("timed out waiting for %s; logs:\n%s", what, h.logJSON.String())
		}
	}
}

func TestMetricsCountClicksDecisionsAndSlackCalls(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ms := h.startMeasuredBot(testConfig())
	a := h.request(workflow.Request{})
	h.click(outsider, a, blocks.ActionApprove)
	h.waitFor("the outsider told", func() bool { return len(h.ephemeralsTo(outsider)) == 1 })
	h.click(approver, a, blocks.ActionApprove)
	h.waitFor("message updated", func() bool { return h.outcomeShown(a, "Approved") })
	h.waitValue(ms, "chat.update counted", func() bool {
		return ms.value(t, "approvals_slack_api_calls_total", "method", "chat.update", "status", "ok") == 1
	})

	tests := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"approvals_envelopes_total", []string{"type", "block_actions"}, 2},
		{"approvals_envelopes_total", []string{"type", "view_submission"}, 0},
		{"approvals_ack_duration_seconds", nil, 2},
		{"approvals_acks_failed_total", nil, 0},
		{"approvals_resume_results_total", []string{"code", "ok"}, 1},
		{"approvals_resume_results_total", []string{"code", "forbidden"}, 1},
		{"approvals_resume_results_total", []string{"code", "error"}, 0},
		{"approvals_decisions_total", []string{"outcome", "approved"}, 1},
		{"approvals_decisions_total", []string{"outcome", "rejected"}, 0},
		{"approvals_time_to_decision_seconds", nil, 1},
		{"approvals_slack_api_calls_total", []string{"method", "apps.connections.open", "status", "ok"}, 1},
		{"approvals_slack_api_calls_total", []string{"method", "chat.postEphemeral", "status", "ok"}, 1},
		{"approvals_slack_api_calls_total", []string{"method", "auth.test", "status", "ok"}, 1},
		{"approvals_socket_events_total", []string{"event", "connected"}, 1},
		{"approvals_socket_events_total", []string{"event", "hello"}, 1},
		{"approvals_socket_reconnects_total", nil, 0},
		{"approvals_socket_connected", nil, 1},
		{"approvals_slack_update_rate", nil, 1000},
	}
	for _, tt := range tests {
		if got := ms.value(t, tt.name, tt.labels...); got != tt.want {
			t.Errorf("%s%v = %v, want %v", tt.name, tt.labels, got, tt.want)
		}
	}
}

// A 429 is counted by method as ratelimited, and the chat.update pace
// reads 0 while it pauses the outbox, then the pace it learnt.
func TestMetricsCountRateLimitsAndPacing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(o *fakeslack.Options) {
		o.RateLimits = map[string]fakeslack.RateLimit{"chat.update": {Burst: 1, Per: 2 * time.Second}}
	})
	ms := h.startMeasuredBot(testConfig())
	a, b := h.request(workflow.Request{}), h.request(workflow.Request{})
	h.click(approver, a, blocks.ActionApprove)
	h.click(approver, b, blocks.ActionApprove)
	h.waitValue(ms, "a 429 counted", func() bool {
		return ms.value(t, "approvals_slack_api_calls_total", "method", "chat.update", "status", "ratelimited") >= 1
	})
	if got := ms.value(t, "approvals_slack_update_rate"); got != 0 {
		t.Errorf("update rate during the Retry-After pause = %v, want 0", got)
	}
	h.waitFor("both messages updated", func() bool { return h.outcomeShown(a, "Approved") && h.outcomeShown(b, "Approved") })
	h.waitValue(ms, "a pace again after the pause", func() bool { return ms.value(t, "approvals_slack_update_rate") > 0 })
}

func TestMetricsCountReconnects(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ms := h.startMeasuredBot(testConfig())
	h.waitValue(ms, "the first hello", func() bool { return ms.value(t, "approvals_socket_events_total", "event", "hello") == 1 })
	h.slack.Disconnect(fakeslack.ReasonRefreshRequested)
	h.waitValue(ms, "a second hello", func() bool { return ms.value(t, "approvals_socket_events_total", "event", "hello") >= 2 })
	hellos := ms.value(t, "approvals_socket_events_total", "event", "hello")
	if got := ms.value(t, "approvals_socket_reconnects_total"); got != hellos-1 {
		t.Errorf("reconnects = %v after %v hellos, want one fewer", got, hellos)
	}
	if got := ms.value(t, "approvals_socket_events_total", "event", "connecting"); got < 2 {
		t.Errorf("connecting events = %v, want 2 or more", got)
	}
}

// The sweeper counts its work and sets the open approvals by age from the
// queues it reads; an expiry logs the line the expiry alarm counts.
func TestMetricsCountSweeps(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.clock.Add(int64(-2 * time.Hour)) // asked two hours ago
	overdue := h.request(workflow.Request{TimeoutSeconds: 60})
	h.request(workflow.Request{})
	h.clock.Add(int64(2 * time.Hour))
	h.request(workflow.Request{}) // just asked
	ms := h.startMeasuredBot(testConfig())

	h.waitValue(ms, "the expiry counted", func() bool {
		return ms.value(t, "approvals_swept_approvals_total", "outcome", "expired") == 1
	})
	h.waitFor("expired message updated", func() bool { return h.outcomeShown(overdue, "xpired") })
	h.waitValue(ms, "the stale message counted", func() bool { return ms.value(t, "approvals_swept_messages_total") >= 1 })
	if got := ms.value(t, "approvals_sweeps_total", "result", "ok"); got < 1 {
		t.Errorf("sweeps ok = %v, want at least 1", got)
	}
	h.waitValue(ms, "ages set", func() bool {
		return ms.value(t, "approvals_open_approvals", "age", "under_1h") == 1 && ms.value(t, "approvals_open_approvals", "age", "1h_to_1d") == 1
	})
	if got := ms.value(t, "approvals_open_approvals", "age", "over_7d"); got != 0 {
		t.Errorf("over_7d = %v, want 0", got)
	}
	expired := h.logs.FilterMessage("approvals expired unanswered").FilterField(zap.String("alert", alertExpired))
	if expired.Len() != 1 {
		t.Errorf("%d expiry alert lines, want 1", expired.Len())
	}

	h.store.SetErr(errors.New("dynamodb: unreachable"))
	h.waitValue(ms, "a failed sweep", func() bool { return ms.value(t, "approvals_sweeps_total", "result", "failed") >= 1 })
	h.store.SetErr(nil)
}

func TestNewMetricsRefusesASecondRegistration(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
	if _, err := NewMetrics(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := NewMetrics(reg); err == nil {
		t.Error("a second Metrics on one registry was accepted")
	}
	if families := gather(t, reg); len(families) == 0 {
		t.Error("gathered no families")
	}
}

// A nil *Metrics records nothing and breaks nothing.
func TestNilMetricsRecordNothing(t *testing.T) {
	t.Parallel()
	var m *Metrics
	m.envelope("block_actions")
	m.acked(time.Now(), nil)
	m.decided(nil, workflow.Approval{})
	m.socketEvent("hello")
	m.reconnected()
	m.sweep(workflow.RecoverReport{}, false, 0, time.Now())
	m.slackCall("chat.update", "ok")
	if rt := m.SlackTransport(nil); rt != nil {
		t.Errorf("SlackTransport on nil Metrics = %v, want next", rt)
	}
	if !strings.HasPrefix(probeID, "readiness") {
		t.Errorf("probeID = %q", probeID)
	}
}
