// Package notifier is the Lambda a Step Functions state machine invokes with
// arn:aws:states:::lambda:invoke.waitForTaskToken: it stores the task token
// under a short approval ID and posts the request to Slack, once per token.
//
// The package depends on the workflow domain only; cmd/notifier wires the
// DynamoDB store and the Slack poster into it.
package notifier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/emf"
	"github.com/sfnapprovals/approvals/workflow"
)

// Poster posts an approval request message to Slack and updates it.
type Poster interface {
	// PostRequest posts the request message for a in a.Channel (in the
	// thread a.ThreadTS, if set) and returns where it landed. An error
	// means nothing was posted, or that Slack's answer was lost; its text
	// should carry Slack's error code. An error that has a RetryAfter()
	// time.Duration method returning more than 0 is Slack's 429, and says
	// when to try again.
	PostRequest(ctx context.Context, a workflow.Approval) (channel, ts string, err error)
	// UpdateMessage makes the recorded message of the final approval a
	// show its outcome.
	UpdateMessage(ctx context.Context, a workflow.Approval) error
	// Permalink returns the link to a message.
	Permalink(ctx context.Context, channel, ts string) (string, error)
}

// Response is what the notifier returns; Step Functions records it as the
// TaskSubmitted output.
type Response struct {
	ApprovalID string `json:"approvalId"`
	Channel    string `json:"channel"`
	TS         string `json:"ts"`
}

// Handler handles notifier invocations. It is safe for concurrent use.
type Handler struct {
	service *workflow.Service
	poster  Poster
	logger  *zap.Logger
	now     func() time.Time
	sleep   func(context.Context, time.Duration) error

	// Metrics, when set, gets one CloudWatch EMF line per invocation (see
	// measure). Set it before the first invocation.
	Metrics *emf.Logger
	// Locale is the language of a request without one
	// (APPROVALS_LOCALE; "" is English). Set it before the first
	// invocation.
	Locale string
}

// New returns a Handler that stores approvals through service and posts
// them with poster, logging one line per invocation to logger.
func New(service *workflow.Service, poster Poster, logger *zap.Logger) *Handler {
	return &Handler{service: service, poster: poster, logger: logger, now: time.Now, sleep: sleepCtx}
}

// Handle stores the approval request in payload and posts it to Slack.
// A repeated call with the same task token posts nothing new once the first
// post was recorded, and returns the same Response; nor does a call for an
// approval that is already final.
//
// Once the request is posted and recorded, older requests it replaces are
// cancelled (workflow.Service.Superseded: the same execution and state,
// their task attempt closed, as when a Retry invoked the notifier again
// after a post whose answer was lost) and their messages updated to link
// to the new one. That is best effort: a failure there is logged, never
// returned, and the bot's sweeper updates a message left behind.
//
// Errors are returned unwrapped as *InvalidApprovalRequest,
// *SlackPostFailed or *StoreUnavailable, so each reaches Step Functions
// under its type name. No error text contains the task token.
//
// Two calls with the same token running at the same time may both post, as
// may a retry after a post whose recording failed: Slack has no idempotent
// post, so the handler narrows the window rather than closing it.
func (h *Handler) Handle(ctx context.Context, payload json.RawMessage) (Response, error) {
	start := time.Now()
	line := invocationLog{start: start}
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		line.requestID = lc.AwsRequestID
	}
	resp, err := h.handle(ctx, payload, &line)
	h.log(line, err)
	h.measure(line, err, time.Since(start))
	return resp, err
}

func (h *Handler) handle(ctx context.Context, payload []byte, line *invocationLog) (Response, error) {
	req, err := workflow.ParseRequest(payload)
	if err != nil {
		return Response{}, invalid(err)
	}
	if req.Locale == "" {
		req.Locale = h.Locale
	}
	line.executionARN, line.channel = req.ExecutionARN, req.Channel

	a, created, err := h.service.Request(ctx, req)
	if err != nil {
		if workflow.ErrorCode(err) == workflow.EINVALID {
			return Response{}, invalid(err)
		}
		return Response{}, &StoreUnavailable{
			Message: redact("could not store the approval request: "+err.Error(), req.TaskToken),
			Err:     err,
		}
	}
	line.approvalID, line.created = a.ID, created
	if a.MessageTS != "" || a.Status.Final() {
		line.channel = a.Channel
		return Response{ApprovalID: a.ID, Channel: a.Channel, TS: a.MessageTS}, nil
	}

	channel, ts, err := h.post(ctx, a, line)
	if err != nil {
		return Response{}, postFailed(a, err, req.TaskToken)
	}
	line.posted, line.channel = true, channel

	recorded, err := h.service.RecordMessage(ctx, a.ID, channel, ts)
	switch {
	case workflow.ErrorCode(err) == workflow.ECONFLICT:
		// A call with the same token running at the same time recorded its
		// post first; this one is a copy, and the task learns the first.
		recorded = errorApproval(err, a)
		line.duplicate = true
	case err != nil:
		return Response{}, &StoreUnavailable{
			ApprovalID: line.approvalID,
			Message:    redact(fmt.Sprintf("posted approval %s to Slack (channel %s, ts %s) but could not record it: %v", line.approvalID, channel, ts, err), req.TaskToken),
			Err:        err,
		}
	default:
		h.replaceOlder(ctx, recorded, line)
	}
	return Response{ApprovalID: recorded.ID, Channel: recorded.Channel, TS: recorded.MessageTS}, nil
}

// replaceOlder cancels the older requests newer replaces and updates their
// messages, best effort (see Handle).
func (h *Handler) replaceOlder(ctx context.Context, newer workflow.Approval, line *invocationLog) {
	older, err := h.service.Superseded(ctx, newer)
	if err != nil {
		line.replaceErrs = append(line.replaceErrs, redact(err.Error(), newer.TaskToken))
	}
	if len(older) == 0 {
		return
	}
	link, err := h.poster.Permalink(ctx, newer.Channel, newer.MessageTS)
	if err != nil {
		line.replaceErrs = append(line.replaceErrs, "link to the new request: "+err.Error())
	}
	for _, o := range older {
		c, err := h.service.Cancel(ctx, o.ID, workflow.Replaced(newer, link))
		if err != nil {
			if workflow.ErrorCode(err) != workflow.ECONFLICT { // not decided or expired meanwhile
				line.replaceErrs = append(line.replaceErrs, err.Error())
			}
			continue
		}
		line.replaced = append(line.replaced, c.ID)
		if c.MessageTS == "" {
			continue // a click on it records it, and the bot updates it
		}
		if err := h.poster.UpdateMessage(ctx, c); err != nil {
			line.replaceErrs = append(line.replaceErrs, fmt.Sprintf("update the message of replaced approval %s (the bot's sweeper will): %v", c.ID, err))
			continue
		}
		if err := h.service.MessageSynced(ctx, c.ID); err != nil {
			line.replaceErrs = append(line.replaceErrs, err.Error())
		}
	}
}

// errorApproval is the approval a domain error carries, or fallback.
func errorApproval(err error, fallback workflow.Approval) workflow.Approval {
	var e *workflow.Error
	if errors.As(err, &e) && e.Approval != nil {
		return *e.Approval
	}
	return fallback
}

// Invoke implements aws-lambda-go's lambda.Handler, so the raw payload
// reaches Handle even when it is not JSON: a payload that is not JSON fails
// as InvalidApprovalRequest rather than as the decoder's error type.
func (h *Handler) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	resp, err := h.Handle(ctx, payload)
	if err != nil {
		return nil, err
	}
	return json.Marshal(resp)
}
