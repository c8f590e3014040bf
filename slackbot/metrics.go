package slackbot

import (
	"sync"
	"time"

	"github.com/sfnapprovals/approvals/internal/metrics"
	"github.com/sfnapprovals/approvals/workflow"
)

// Metrics are the bot's Prometheus series (every name, type and label
// is listed in docs/operating.md, "Bot metrics"). Build them with NewMetrics, pass
// them to one Bot in Config.Metrics and to its HTTP client with
// SlackTransport. A nil *Metrics records nothing.
type Metrics struct {
	envelopes       *metrics.CounterVec
	ackSeconds      *metrics.Histogram
	acksFailed      *metrics.Counter
	decisions       *metrics.CounterVec
	resumeResults   *metrics.CounterVec
	decisionSeconds *metrics.Histogram
	slackCalls      *metrics.CounterVec
	socketEvents    *metrics.CounterVec
	reconnects      *metrics.Counter
	sweeps          *metrics.CounterVec
	swept           *metrics.CounterVec
	sweptMessages   *metrics.Counter
	open            *metrics.GaugeVec

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

// NewMetrics creates the bot's series and registers them with reg. It
// returns an error when a name is already registered there (such as a
// second Metrics on the same registry).
func NewMetrics(reg *metrics.Registry) (*Metrics, error) {
	m := &Metrics{
		envelopes: metrics.NewCounterVec("approvals_envelopes_total",
			"Socket Mode envelopes received, by type (block_actions, view_submission, slash_commands, events_api, other, unreadable).", "type"),
		ackSeconds: metrics.NewHistogram("approvals_ack_duration_seconds",
			"Time from an envelope's arrival at the event loop to its ack being handed to the socket writer.",
			[]float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}),
		acksFailed: metrics.NewCounter("approvals_acks_failed_total",
			"Acks that could not be handed to the socket within the ack timeout."),
		decisions: metrics.NewCounterVec("approvals_decisions_total",
			"Decisions recorded by this replica, by outcome (approved, rejected, revise, skip).", "outcome"),
		resumeResults: metrics.NewCounterVec("approvals_resume_results_total",
			"Results of deciding an approval (a click or a form), by domain code: ok, forbidden, conflict, expired, cancelled, not_found, invalid, error (infrastructure).", "code"),
		decisionSeconds: metrics.NewHistogram("approvals_time_to_decision_seconds",
			"Time from the request to its decision, observed when this replica records a decision.",
			[]float64{10, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 86400, 3 * 86400, 7 * 86400}),
		slackCalls: metrics.NewCounterVec("approvals_slack_api_calls_total",
			"Slack Web API calls, by method and status: ok, Slack's error code, ratelimited (HTTP 429), http_<code>, transport_error, unreadable.", "method", "status"),
		socketEvents: metrics.NewCounterVec("approvals_socket_events_total",
			"Socket Mode connection events, by event (connecting, connected, hello, connection_error, incoming_error, write_error, invalid_auth).", "event"),
		reconnects: metrics.NewCounter("approvals_socket_reconnects_total",
			"Socket Mode connections opened after the first one."),
		sweeps: metrics.NewCounterVec("approvals_sweeps_total",
			"Sweeps run, by result (ok, failed).", "result"),
		swept: metrics.NewCounterVec("approvals_swept_approvals_total",
			"Approvals the sweeper worked on, by outcome: resumed (a stale claim completed), expired (closed unanswered past its deadline), failed (left for the next sweep).", "outcome"),
		sweptMessages: metrics.NewCounter("approvals_swept_messages_total",
			"Stale request messages the sweeper queued for an update."),
		open: metrics.NewGaugeVec("approvals_open_approvals",
			"Open (pending or claimed) approvals at the last sweep, by age since the request (under_1h, 1h_to_1d, 1d_to_7d, over_7d): counts the store keeps, moved on by the sweeps as approvals age.", "age"),
	}
	gauges := []metrics.Family{
		metrics.NewGaugeFunc("approvals_slack_update_rate",
			"chat.update calls per second the outbox allows now: +Inf while Slack has not limited it, 0 while a 429 pauses it.",
			func() float64 { return m.read(func() float64 { return call(m.updateRate) }) }),
		metrics.NewGaugeFunc("approvals_ready",
			"1 when the replica is ready (/readyz): Slack socket and DynamoDB both reachable recently.",
			func() float64 { return m.read(func() float64 { return one(m.ready != nil && m.ready() == nil) }) }),
		metrics.NewGaugeFunc("approvals_socket_connected",
			"1 while the Socket Mode connection is up (hello received, no reconnect since).",
			func() float64 { return m.read(func() float64 { return one(m.connected != nil && m.connected()) }) }),
	}
	if err := reg.Register(append([]metrics.Family{m.envelopes, m.ackSeconds, m.acksFailed, m.decisions, m.resumeResults,
		m.decisionSeconds, m.slackCalls, m.socketEvents, m.reconnects, m.sweeps, m.swept, m.sweptMessages, m.open}, gauges...)...); err != nil {
		return nil, err
	}
	for _, v := range envelopeTypes {
		m.envelopes.With(v)
	}
	for _, v := range socketEvents {
		m.socketEvents.With(v)
	}
	for _, v := range resumeCodes {
		m.resumeResults.With(v)
	}
	for _, v := range decisionOutcomes {
		m.decisions.With(v)
	}
	for _, v := range sweepOutcomes {
		m.swept.With(v)
	}
	for _, v := range []string{"ok", "failed"} {
		m.sweeps.With(v)
	}
	for _, label := range openAges {
		m.open.With(label)
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
		m.envelopes.With(kind).Inc()
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
	m.resumeResults.With(code).Inc()
	if err != nil || a.Decision == nil {
		return
	}
	m.decisions.With(string(a.Decision.Action)).Inc()
	if !a.CreatedAt.IsZero() && !a.Decision.DecidedAt.IsZero() {
		m.decisionSeconds.Observe(a.Decision.DecidedAt.Sub(a.CreatedAt).Seconds())
	}
}

func (m *Metrics) socketEvent(event string) {
	if m != nil {
		m.socketEvents.With(event).Inc()
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
	m.sweeps.With(result).Inc()
	m.swept.With("resumed").Add(float64(rep.Resumed))
	m.swept.With("expired").Add(float64(rep.Expired))
	m.swept.With("failed").Add(float64(rep.Failed))
	m.sweptMessages.Add(float64(queued))
	if len(rep.Open) != len(openAges) {
		return // the counts were not read: keep the last ones
	}
	for i, label := range openAges {
		m.open.With(label).Set(float64(rep.Open[i]))
	}
}

func (m *Metrics) slackCall(method, status string) {
	if m != nil {
		m.slackCalls.With(method, status).Inc()
	}
}
