package slackbot

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sfnapprovals/approvals/workflow"
)

// Metrics are the bot's Prometheus collectors (every name, type and label
// is listed in docs/operating.md, "Bot metrics"). Build them with NewMetrics, pass
// them to one Bot in Config.Metrics and to its HTTP client with
// SlackTransport. A nil *Metrics records nothing.
type Metrics struct {
	envelopes       *prometheus.CounterVec
	ackSeconds      prometheus.Histogram
	acksFailed      prometheus.Counter
	decisions       *prometheus.CounterVec
	resumeResults   *prometheus.CounterVec
	decisionSeconds prometheus.Histogram
	slackCalls      *prometheus.CounterVec
	socketEvents    *prometheus.CounterVec
	reconnects      prometheus.Counter
	sweeps          *prometheus.CounterVec
	swept           *prometheus.CounterVec
	sweptMessages   prometheus.Counter
	open            *prometheus.GaugeVec

	mu         sync.Mutex
	updateRate func() float64
	ready      func() error
	connected  func() bool
}

// Label values known in advance, so their series exist from the start.
var (
	envelopeTypes = []string{"block_actions", "view_submission", "slash_commands", "events_api", "other", "unreadable"}
	socketEvents  = []string{"connecting", "connected", "hello", "connection_error", "incoming_error", "write_error", "invalid_auth"}
	resumeCodes   = []string{"ok", workflow.EFORBIDDEN, workflow.ECONFLICT, workflow.EEXPIRED, workflow.ECANCELLED,
		workflow.ENOTFOUND, workflow.EINVALID, "error"}
	decisionOutcomes = []string{string(workflow.ActionApprove), string(workflow.ActionReject), string(workflow.ActionRevise), string(workflow.ActionSkip)}
	sweepOutcomes    = []string{"resumed", "expired", "failed"}
)

// openAges label the buckets of approvals_open_approvals, by time since
// the request: workflow.AgeBounds, in order, then older.
var openAges = [len(workflow.AgeBounds) + 1]string{"under_1h", "1h_to_1d", "1d_to_7d", "over_7d"}

// NewMetrics creates the bot's collectors and registers them with reg. It
// returns an error when a name is already registered there (such as a
// second Metrics on the same registry).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		envelopes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "approvals_envelopes_total",
			Help: "Socket Mode envelopes received, by type (block_actions, view_submission, slash_commands, events_api, other, unreadable).",
		}, []string{"type"}),
		ackSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "approvals_ack_duration_seconds",
			Help:    "Time from an envelope's arrival at the event loop to its ack being handed to the socket writer.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}),
		acksFailed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "approvals_acks_failed_total",
			Help: "Acks that could not be handed to the socket within the ack timeout.",
		}),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "approvals_decisions_total",
			Help: "Decisions recorded by this replica, by outcome (approved, rejected, revise, skip).",
		}, []string{"outcome"}),
		resumeResults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "approvals_resume_results_total",
			Help: "Results of deciding an approval (a click or a form), by domain code: ok, forbidden, conflict, expired, cancelled, not_found, invalid, error (infrastructure).",
		}, []string{"code"}),
		decisionSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "approvals_time_to_decision_seconds",
			Help:    "Time from the request to its decision, observed when this replica records a decision.",
			Buckets: []float64{10, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 86400, 3 * 86400, 7 * 86400},
		}),
		slackCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "approvals_slack_api_calls_total",
			Help: "Slack Web API calls, by method and status: ok, Slack's error code, ratelimited (HTTP 429), http_<code>, transport_error, unreadable.",
		}, []string{"method", "status"}),
		socketEvents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "approvals_socket_events_total",
			Help: "Socket Mode connection events, by event (connecting, connected, hello, connection_error, incoming_error, write_error, invalid_auth).",
		}, []string{"event"}),
		reconnects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "approvals_socket_reconnects_total",
			Help: "Socket Mode connections opened after the first one.",
		}),
		sweeps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "approvals_sweeps_total",
			Help: "Sweeps run, by result (ok, failed).",
		}, []string{"result"}),
		swept: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "approvals_swept_approvals_total",
			Help: "Approvals the sweeper worked on, by outcome: resumed (a stale claim completed), expired (closed unanswered past its deadline), failed (left for the next sweep).",
		}, []string{"outcome"}),
		sweptMessages: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "approvals_swept_messages_total",
			Help: "Stale request messages the sweeper queued for an update.",
		}),
		open: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "approvals_open_approvals",
			Help: "Open (pending or claimed) approvals at the last sweep, by age since the request (under_1h, 1h_to_1d, 1d_to_7d, over_7d): counts the store keeps, moved on by the sweeps as approvals age.",
		}, []string{"age"}),
	}
	gauges := []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "approvals_slack_update_rate",
			Help: "chat.update calls per second the outbox allows now: +Inf while Slack has not limited it, 0 while a 429 pauses it.",
		}, func() float64 { return m.read(func() float64 { return call(m.updateRate) }) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "approvals_ready",
			Help: "1 when the replica is ready (/readyz): Slack socket and DynamoDB both reachable recently.",
		}, func() float64 { return m.read(func() float64 { return one(m.ready != nil && m.ready() == nil) }) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "approvals_socket_connected",
			Help: "1 while the Socket Mode connection is up (hello received, no reconnect since).",
		}, func() float64 { return m.read(func() float64 { return one(m.connected != nil && m.connected()) }) }),
	}
	for _, c := range append([]prometheus.Collector{m.envelopes, m.ackSeconds, m.acksFailed, m.decisions, m.resumeResults,
		m.decisionSeconds, m.slackCalls, m.socketEvents, m.reconnects, m.sweeps, m.swept, m.sweptMessages, m.open}, gauges...) {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	for _, v := range envelopeTypes {
		m.envelopes.WithLabelValues(v)
	}
	for _, v := range socketEvents {
		m.socketEvents.WithLabelValues(v)
	}
	for _, v := range resumeCodes {
		m.resumeResults.WithLabelValues(v)
	}
	for _, v := range decisionOutcomes {
		m.decisions.WithLabelValues(v)
	}
	for _, v := range sweepOutcomes {
		m.swept.WithLabelValues(v)
	}
	for _, v := range []string{"ok", "failed"} {
		m.sweeps.WithLabelValues(v)
	}
	for _, label := range openAges {
		m.open.WithLabelValues(label)
	}
	return m, nil
}

func call(f func() float64) float64 {
	if f == nil {
		return 0
	}
	return f()
}

func one(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// read runs f under the lock that guards the functions attach sets.
func (m *Metrics) read(f func() float64) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return f()
}

// attach points the gauges that read the bot's state at b.
func (m *Metrics) attach(b *Bot) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.updateRate = b.UpdatePace
	m.ready = b.Ready
	m.connected = b.health.socketUp
}

func (m *Metrics) envelope(kind string) {
	if m != nil {
		m.envelopes.WithLabelValues(kind).Inc()
	}
}

func (m *Metrics) acked(since time.Time, err error) {
	if m == nil {
		return
	}
	if err != nil {
		m.acksFailed.Inc()
		return
	}
	m.ackSeconds.Observe(time.Since(since).Seconds())
}

// decided counts the result of one decision attempt and, when it was
// recorded, the decision and its time since the request.
func (m *Metrics) decided(err error, a workflow.Approval) {
	if m == nil {
		return
	}
	code := workflow.ErrorCode(err)
	switch {
	case err == nil:
		code = "ok"
	case code == "":
		code = "error"
	}
	m.resumeResults.WithLabelValues(code).Inc()
	if err != nil || a.Decision == nil {
		return
	}
	m.decisions.WithLabelValues(string(a.Decision.Action)).Inc()
	if !a.CreatedAt.IsZero() && !a.Decision.DecidedAt.IsZero() {
		m.decisionSeconds.Observe(a.Decision.DecidedAt.Sub(a.CreatedAt).Seconds())
	}
}

func (m *Metrics) socketEvent(event string) {
	if m != nil {
		m.socketEvents.WithLabelValues(event).Inc()
	}
}

func (m *Metrics) reconnected() {
	if m != nil {
		m.reconnects.Inc()
	}
}

// sweep records a sweep: its recovery report, whether it failed, and the
// stale messages it queued.
func (m *Metrics) sweep(rep workflow.RecoverReport, failed bool, queued int, now time.Time) {
	if m == nil {
		return
	}
	result := "ok"
	if failed {
		result = "failed"
	}
	m.sweeps.WithLabelValues(result).Inc()
	m.swept.WithLabelValues("resumed").Add(float64(rep.Resumed))
	m.swept.WithLabelValues("expired").Add(float64(rep.Expired))
	m.swept.WithLabelValues("failed").Add(float64(rep.Failed))
	m.sweptMessages.Add(float64(queued))
	if len(rep.Open) != len(openAges) {
		return // the counts were not read: keep the last ones
	}
	for i, label := range openAges {
		m.open.WithLabelValues(label).Set(float64(rep.Open[i]))
	}
}

func (m *Metrics) slackCall(method, status string) {
	if m != nil {
		m.slackCalls.WithLabelValues(method, status).Inc()
	}
}
