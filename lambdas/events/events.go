// Package events is the Lambda an EventBridge rule invokes with Step
// Functions "Step Functions Execution Status Change" events: when an
// execution ends, the requests still open for it are closed (cancelled,
// with the reason and when it stopped) and their Slack messages updated in
// place, with a reply in each request's thread.
//
// The package depends on the workflow domain only; cmd/approvals-events
// wires the DynamoDB store and the Slack poster into it.
package events

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/emf"
	"github.com/sfnapprovals/approvals/workflow"
)

// Poster updates request messages in Slack.
type Poster interface {
	// UpdateMessage makes the recorded message of the final approval a
	// show its outcome, without buttons.
	UpdateMessage(ctx context.Context, a workflow.Approval) error
	// PostReply posts the short outcome of the final approval a in its
	// request's thread.
	PostReply(ctx context.Context, a workflow.Approval) error
	// PostRequesterNotice tells the requester of the final approval a, in
	// a direct message, that it was cancelled.
	PostRequesterNotice(ctx context.Context, a workflow.Approval) error
}

// Response is what an invocation did. EventBridge ignores it; it is for
// people and tests invoking the function by hand.
type Response struct {
	ExecutionARN string `json:"executionArn,omitempty"`
	Status       string `json:"status,omitempty"`
	// Closed are the approvals this event closed.
	Closed []string `json:"closed"`
	// Unsynced are closed approvals whose message was not updated here:
	// the bot's sweeper updates them.
	Unsynced []string `json:"unsynced,omitempty"`
	// Ignored says why the event changed nothing, when it was not about
	// an ended execution.
	Ignored string `json:"ignored,omitempty"`
}

// Handler handles events. It is safe for concurrent use.
type Handler struct {
	service *workflow.Service
	poster  Poster
	logger  *zap.Logger
	// SlackReserve is the part of the invocation's time kept back from
	// Slack calls, so the invocation ends on its own rather than by the
	// function timeout; messages left are the sweeper's.
	SlackReserve time.Duration
	// Metrics, when set, gets the CloudWatch EMF lines of each invocation
	// (see measure). Set it before the first invocation.
	Metrics *emf.Logger

	now func() time.Time // times the invocation for Duration
}

// slackFailureLimit is how many Slack calls in a row may fail before an
// invocation leaves the rest of its messages to the sweeper (an outage, or
// rate limiting).
const slackFailureLimit = 2

// New returns a Handler that closes requests through service and updates
// their messages with poster, logging to logger.
func New(service *workflow.Service, poster Poster, logger *zap.Logger) *Handler {
	return &Handler{service: service, poster: poster, logger: logger, SlackReserve: 3 * time.Second, now: time.Now}
}

// Handle acts on one execution status change event. For an execution that
// ended (SUCCEEDED, FAILED, TIMED_OUT, ABORTED) it closes the execution's
// pending requests (workflow.Service.CloseExecution: one Query when there
// are none), then, for each one closed, updates its message, records it
// as synced and replies in its thread. An event about a running execution
// changes nothing; so does a repeated or late event.
//
// A malformed event (not Step Functions' execution status change, an
// execution ARN or a status of the wrong shape) is logged without its
// content and acknowledged: EventBridge would retry a failure, and a bad
// event never gets better. A Slack failure does not fail the invocation:
// the approval is closed and its message waits for the bot's sweeper,
// without a thread reply. A failure of the approvals table is returned as
// *StoreUnavailable (the only error), so Lambda's retry of the
// asynchronous invocation repeats the event; what was closed before the
// failure has its message updated first.
func (h *Handler) Handle(ctx context.Context, payload []byte) (Response, error) {
	start := h.now()
	var o outcome
	resp, err := h.handle(ctx, payload, start, &o)
	h.measure(o, err, h.now().Sub(start))
	return resp, err
}

// outcome is what an invocation did, for its metrics.
type outcome struct {
	malformed     bool
	status        workflow.ExecutionStatus // of an ended execution, else ""
	closed        int
	slackFailures int
}

func (h *Handler) handle(ctx context.Context, payload []byte, start time.Time, o *outcome) (Response, error) {
	log := h.logger
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		log = log.With(zap.String("aws_request_id", lc.AwsRequestID))
	}
	x, err := parseEvent(payload)
	if err != nil {
		o.malformed = true
		log.Warn("event ignored: not a Step Functions execution status change event", zap.String("reason", err.Error()))
		return Response{Closed: []string{}, Ignored: err.Error()}, nil
	}
	resp := Response{ExecutionARN: x.ARN, Status: string(x.Status), Closed: []string{}}
	log = log.With(zap.String("execution_arn", x.ARN), zap.String("status", string(x.Status)))
	if !x.Status.Ended() {
		resp.Ignored = "the execution has not ended"
		log.Debug("event ignored: the execution has not ended")
		return resp, nil
	}
	o.status = x.Status
	closed, cerr := h.service.CloseExecution(ctx, x)
	for _, a := range closed {
		resp.Closed = append(resp.Closed, a.ID)
	}
	o.closed = len(closed)
	resp.Unsynced, o.slackFailures = h.announce(ctx, closed, log)
	fields := []zap.Field{zap.Strings("closed", resp.Closed), zap.Duration("duration", h.now().Sub(start))}
	if len(resp.Unsynced) > 0 {
		fields = append(fields, zap.Strings("unsynced", resp.Unsynced))
	}
	if cerr != nil {
		err := &StoreUnavailable{
			ExecutionARN: x.ARN,
			Message:      fmt.Sprintf("could not close the requests of execution %s: %v", x.ARN, cerr),
			Err:          cerr,
		}
		log.Warn("closing the requests of an ended execution failed; the event will be retried",
			append(fields, zap.String("error", err.Error()), zap.String("error_type", ErrorStoreUnavailable))...)
		return resp, err
	}
	if len(closed) == 0 {
		log.Debug("execution ended with no open request", fields...)
		return resp, nil
	}
	log.Info("execution ended: its open requests are closed", fields...)
	return resp, nil
}

// announce updates the messages of the closed approvals and replies in
// their threads, and returns the IDs of those whose message it did not
// update (left to the sweeper) and how many Slack calls failed.
func (h *Handler) announce(ctx context.Context, closed []workflow.Approval, log *zap.Logger) (left []string, slackFailures int) {
	slackCtx := ctx
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		slackCtx, cancel = context.WithDeadline(ctx, deadline.Add(-h.SlackReserve))
		defer cancel()
	}
	failures := 0
	for _, a := range closed {
		alog := log.With(zap.String("approval_id", a.ID))
		if a.MessageTS == "" {
			continue // never recorded: a click on it records it, and the bot updates it
		}
		if failures >= slackFailureLimit || slackCtx.Err() != nil {
			left = append(left, a.ID)
			continue
		}
		if err := h.poster.UpdateMessage(slackCtx, a); err != nil {
			failures++
			slackFailures++
			left = append(left, a.ID)
			alog.Warn("request message not updated; the bot's sweeper will", zap.Error(err))
			continue
		}
		failures = 0
		if err := h.service.MessageSynced(ctx, a.ID); err != nil {
			alog.Warn("could not record that the message is updated; the bot's sweeper will update it again", zap.Error(err))
		}
		if err := h.poster.PostReply(slackCtx, a); err != nil {
			failures++
			slackFailures++
			alog.Warn("thread reply not posted", zap.Error(err))
		}
		h.tellRequester(ctx, slackCtx, a, alog)
	}
	return left, slackFailures
}

// Invoke implements aws-lambda-go's lambda.Handler, so the raw payload
// reaches Handle even when it is not JSON (and is acknowledged).
func (h *Handler) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	resp, err := h.Handle(ctx, payload)
	if err != nil {
		return nil, err
	}
	return json.Marshal(resp)
}

// tellRequester sends the requester of the cancelled approval a their one
// direct message, when the request asks for it and this invocation claims
// it (workflow.Service.ClaimRequesterNotice); at most once, so a failure
// is logged and not repeated.
func (h *Handler) tellRequester(ctx, slackCtx context.Context, a workflow.Approval, log *zap.Logger) {
	if !a.NotifyRequester || a.RequestedBy == "" {
		return
	}
	claimed, ok, err := h.service.ClaimRequesterNotice(ctx, a.ID)
	switch {
	case err != nil:
		log.Warn("requester's notice not claimed; not sent", zap.Error(err))
		return
	case !ok:
		return
	}
	if err := h.poster.PostRequesterNotice(slackCtx, claimed); err != nil {
		log.Warn("requester's notice not sent", zap.Error(err))
	}
}
