package fakeslack

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"
)

// ErrNoConnection is returned when an envelope is sent while no socket is live. An events_api
// envelope is still redelivered later; an interactive or slash envelope is recorded as a failure.
var ErrNoConnection = errors.New("fakeslack: no live socket mode connection")

// SlackEventRetries is Slack's schedule of redeliveries of an events_api envelope that was not
// acknowledged in time: at once, after a minute, after five minutes; then Slack gives up. Slack
// redelivers nothing else: an interactive or slash command envelope that is not acknowledged shows
// the person an error instead.
var SlackEventRetries = []time.Duration{0, time.Minute, 5 * time.Minute}

// Envelope is a Socket Mode envelope as sent to the app.
type Envelope struct {
	ID      string
	Type    string
	Payload json.RawMessage
}

// Ack is an acknowledgement received from the app. Latency runs from the envelope's last
// (re)delivery to the ack.
type Ack struct {
	EnvelopeID string
	Payload    json.RawMessage
	Latency    time.Duration
}

// Delivery is one delivery of an envelope: the socket it was written to (0 when no socket was
// live) and when.
type Delivery struct {
	Socket int
	At     time.Time
}

type envelope struct {
	Envelope
	acceptsResponse bool
	retryAttempt    int
	sentAt          atomic.Int64 // unix nanoseconds; set when the frame goes on the wire
	timer           *time.Timer
	acked, failed   bool
	onAck           func(payload json.RawMessage) // runs under s.mu
	// pinned: the first delivery goes to the live socket via (an index into the live sockets in
	// the order they connected, modulo their number) rather than to one at random, as Slack picks.
	pinned     bool
	via        int
	deliveries []Delivery
}

// send registers env and delivers it to one live socket chosen at random.
func (s *Server) send(env *envelope) (string, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return "", ErrClosed
	}
	env.ID = s.nextIDLocked("env-")
	s.socket.envelopes[env.ID] = env
	c, frame := s.deliverLocked(env)
	s.mu.Unlock()
	return env.ID, s.writeEnvelope(c, frame, env)
}

// deliverLocked picks the socket, stamps the send time and arms the ack deadline. It returns a nil
// conn when no socket is live.
func (s *Server) deliverLocked(env *envelope) (*conn, []byte) {
	msg := map[string]any{
		"envelope_id":              env.ID,
		"type":                     env.Type,
		"accepts_response_payload": env.acceptsResponse,
		"payload":                  env.Payload,
	}
	if env.Type == "events_api" {
		msg["retry_attempt"] = env.retryAttempt
		msg["retry_reason"] = ""
		if env.retryAttempt > 0 {
			msg["retry_reason"] = "timeout"
		}
	}
	frame, _ := json.Marshal(msg)
	now := time.Now()
	env.sentAt.Store(now.UnixNano())
	live := s.socket.liveLocked()
	if len(live) == 0 {
		env.deliveries = append(env.deliveries, Delivery{At: now})
		if env.Type != "events_api" {
			s.failLocked(env)
			return nil, nil
		}
	}
	env.timer = time.AfterFunc(s.opts.AckTimeout, func() { s.ackTimedOut(env) })
	if len(live) == 0 {
		return nil, nil
	}
	c := live[rand.IntN(len(live))]
	if env.pinned && len(env.deliveries) == 0 {
		c = live[env.via%len(live)]
	}
	env.deliveries = append(env.deliveries, Delivery{Socket: c.id, At: now})
	return c, frame
}

// writeEnvelope writes an envelope's frame and restamps its send time once
// the socket is free, so ack latency measures the app, not this fake's own
// queue of frames for the same socket.
func (s *Server) writeEnvelope(c *conn, frame []byte, env *envelope) error {
	if c == nil {
		return ErrNoConnection
	}
	if err := c.writeStamped(frame, func() { env.sentAt.Store(time.Now().UnixNano()) }); err != nil {
		c.close()
		return err
	}
	return nil
}

func (s *Server) write(c *conn, frame []byte) error {
	if c == nil {
		return ErrNoConnection
	}
	if err := c.write(frame); err != nil {
		c.close()
		return err
	}
	return nil
}

// ackTimedOut schedules the next redelivery of an events_api envelope (Options.EventRetries);
// anything else, or an event past its last retry, becomes a failure the user would have seen.
func (s *Server) ackTimedOut(env *envelope) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || env.acked || env.failed {
		return
	}
	if env.Type != "events_api" || env.retryAttempt >= len(s.opts.EventRetries) {
		s.failLocked(env)
		return
	}
	pause := s.opts.EventRetries[env.retryAttempt]
	env.retryAttempt++
	env.timer = time.AfterFunc(pause, func() { s.redeliver(env) })
}

// redeliver delivers an events_api envelope again, to any live socket, unless it was acked
// meanwhile.
func (s *Server) redeliver(env *envelope) {
	s.mu.Lock()
	if s.closed || env.acked || env.failed {
		s.mu.Unlock()
		return
	}
	s.wg.Add(1)
	defer s.wg.Done()
	c, frame := s.deliverLocked(env)
	s.notifyLocked()
	s.mu.Unlock()
	_ = s.writeEnvelope(c, frame, env)
}

func (s *Server) failLocked(env *envelope) {
	env.failed = true
	s.socket.failures = append(s.socket.failures, env.ID)
	s.notifyLocked()
}

func (s *Server) stopTimersLocked() {
	for _, env := range s.socket.envelopes {
		if env.timer != nil {
			env.timer.Stop()
		}
	}
}

// handleAck records a frame from the app. Every ack is recorded, including duplicates and late
// ones, so tests can see double acks.
func (s *Server) handleAck(frame []byte, received time.Time) {
	var ack struct {
		EnvelopeID string          `json:"envelope_id"`
		Payload    json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(frame, &ack) != nil || ack.EnvelopeID == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := Ack{EnvelopeID: ack.EnvelopeID, Payload: ack.Payload}
	if env, ok := s.socket.envelopes[ack.EnvelopeID]; ok {
		a.Latency = received.Sub(time.Unix(0, env.sentAt.Load()))
		first := !env.acked && !env.failed
		env.acked = true
		if env.timer != nil {
			env.timer.Stop()
		}
		if first && env.onAck != nil {
			env.onAck(ack.Payload)
		}
	}
	s.socket.acks = append(s.socket.acks, a)
	s.notifyLocked()
}

// Acks returns every ack received, in arrival order.
func (s *Server) Acks() []Ack {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.socket.acks)
}

// Failures returns the IDs of envelopes never acked in time: interactive and slash envelopes after
// one AckTimeout (or at once when no socket was live), events_api envelopes after their last retry.
func (s *Server) Failures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.socket.failures)
}

// WaitAck waits for the first ack of an envelope.
func (s *Server) WaitAck(ctx context.Context, envelopeID string) (Ack, error) {
	var got Ack
	err := s.WaitFor(ctx, func() bool {
		for _, a := range s.Acks() {
			if a.EnvelopeID == envelopeID {
				got = a
				return true
			}
		}
		return false
	})
	return got, err
}

// ErrNotAcked is returned by WaitHandled for an envelope the app did not ack in time: Slack shows
// the person an error instead.
var ErrNotAcked = errors.New("fakeslack: the app did not acknowledge the envelope in time")

// WaitHandled waits until an interactive or slash command envelope is acked, and returns the
// ack, or until it failed (no ack within AckTimeout, or no live socket), and returns ErrNotAcked.
// An ack's effect on the fake (a modal's errors, a command's answer) is applied before it returns.
func (s *Server) WaitHandled(ctx context.Context, envelopeID string) (Ack, error) {
	var got Ack
	var failed bool
	err := s.WaitFor(ctx, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, a := range s.socket.acks {
			if a.EnvelopeID == envelopeID {
				got = a
				return true
			}
		}
		failed = slices.Contains(s.socket.failures, envelopeID)
		return failed
	})
	if err == nil && failed {
		err = ErrNotAcked
	}
	return got, err
}

// SendRaw sends an arbitrary text frame to one live socket, for malformed or unknown envelopes.
// No ack is expected.
func (s *Server) SendRaw(raw []byte) error {
	s.mu.Lock()
	live := s.socket.liveLocked()
	s.mu.Unlock()
	if len(live) == 0 {
		return ErrNoConnection
	}
	return s.write(live[rand.IntN(len(live))], raw)
}

// Deliveries returns the deliveries of an envelope, in order: one, or more for a redelivered
// events_api envelope.
func (s *Server) Deliveries(envelopeID string) []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	if env, ok := s.socket.envelopes[envelopeID]; ok {
		return slices.Clone(env.deliveries)
	}
	return nil
}

// Envelope returns an envelope the fake sent, by ID, with its payload as last delivered.
func (s *Server) Envelope(id string) (Envelope, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	env, ok := s.socket.envelopes[id]
	if !ok {
		return Envelope{}, false
	}
	return env.Envelope, true
}
