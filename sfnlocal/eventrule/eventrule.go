// Package eventrule delivers the local engine's execution status change
// events (sfnlocal.Options.Events) the way an EventBridge rule with a
// Lambda target does: it matches each event's detail.status against the
// rule's statuses and invokes the target function asynchronously
// (InvocationType Event) with the event document as the payload, through
// the Lambda integration that runs the engine's Task states (in process or
// through AWS_ENDPOINT_URL_LAMBDA). A failed invocation is retried, then
// logged; the payload is never logged.
//
//	fns := lambda.New(awslambda.NewFromConfig(cfg))
//	rule, err := eventrule.New(eventrule.Config{Function: "approvals-closer", Lambda: fns, Logger: log})
//	engine := sfnlocal.New(sfnlocal.Options{Events: rule.Deliver, …})
package eventrule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// Statuses are the detail.status values a Step Functions execution status
// change event can carry. The local engine emits all but PENDING_REDRIVE.
var Statuses = []string{"RUNNING", "SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED", "PENDING_REDRIVE"}

// Defaults for Config.
const (
	DefaultAttempts = 3
	DefaultBackoff  = 200 * time.Millisecond
)

// invokeResource is the Lambda integration's resource for Invoke.
const invokeResource = "arn:aws:states:::lambda:invoke"

// Config configures a Rule.
type Config struct {
	// Function is the target function: a name, name:qualifier or ARN.
	Function string
	// Statuses the rule matches (an EventBridge pattern on detail.status);
	// empty matches every event.
	Statuses []string
	// Lambda invokes the function: the engine's Lambda integration
	// (*lambda.Integration), which runs arn:aws:states:::lambda:invoke.
	Lambda task.Integration
	// Logger receives delivery failures; default no-op.
	Logger *zap.Logger
	// Attempts bounds the invocations of one event, the first included;
	// default DefaultAttempts. Backoff is the wait before the first retry,
	// doubled before each further one; default DefaultBackoff.
	Attempts int
	Backoff  time.Duration
}

// Rule delivers matching events to its function. Its methods are safe for
// concurrent use.
type Rule struct {
	cfg      Config
	statuses map[string]bool // nil: all
}

// New checks cfg and returns its rule. It fails on a missing function or
// Lambda integration and on a status no event carries.
func New(cfg Config) (*Rule, error) {
	if cfg.Function == "" {
		return nil, errors.New("eventrule: no target function")
	}
	if cfg.Lambda == nil || !cfg.Lambda.Supports(invokeResource) {
		return nil, errors.New("eventrule: no Lambda integration to invoke the target function")
	}
	r := &Rule{cfg: cfg}
	for _, s := range cfg.Statuses {
		if !slices.Contains(Statuses, s) {
			return nil, fmt.Errorf("eventrule: unknown status %q: an execution status change event carries one of %s", s, strings.Join(Statuses, ", "))
		}
		if r.statuses == nil {
			r.statuses = map[string]bool{}
		}
		r.statuses[s] = true
	}
	if r.cfg.Logger == nil {
		r.cfg.Logger = zap.NewNop()
	}
	if r.cfg.Attempts <= 0 {
		r.cfg.Attempts = DefaultAttempts
	}
	if r.cfg.Backoff <= 0 {
		r.cfg.Backoff = DefaultBackoff
	}
	return r, nil
}

// Deliver invokes the function with event if the rule matches it,
// retrying a failed invocation up to the configured attempts, and logs the
// outcome. It returns once the function accepted the event, the attempts
// are spent or ctx is done. It has the shape of sfnlocal.Options.Events.
func (r *Rule) Deliver(ctx context.Context, event []byte) {
	var ev struct {
		Detail struct {
			ExecutionArn string `json:"executionArn"`
			Status       string `json:"status"`
		} `json:"detail"`
	}
	if err := json.Unmarshal(event, &ev); err != nil {
		r.cfg.Logger.Error("event not delivered: it is not an execution status change event", zap.String("function", r.cfg.Function), zap.Error(err))
		return
	}
	if r.statuses != nil && !r.statuses[ev.Detail.Status] {
		return
	}
	log := r.cfg.Logger.With(zap.String("function", r.cfg.Function),
		zap.String("execution_arn", ev.Detail.ExecutionArn), zap.String("status", ev.Detail.Status))

	call := task.Call{Resource: invokeResource, Parameters: r.parameters(event), ExecutionARN: ev.Detail.ExecutionArn}
	wait := r.cfg.Backoff
	for attempt := 1; ; attempt++ {
		_, err := r.cfg.Lambda.Invoke(ctx, call)
		if err == nil {
			log.Debug("event delivered", zap.Int("attempt", attempt))
			return
		}
		if ctx.Err() != nil {
			log.Warn("event not delivered: delivery stopped", zap.Int("attempt", attempt))
			return
		}
		if attempt == r.cfg.Attempts {
			log.Error("event delivery failed", zap.Int("attempts", attempt), zap.Error(err))
			return
		}
		log.Debug("event delivery failed; retrying", zap.Int("attempt", attempt), zap.Duration("backoff", wait), zap.Error(err))
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			log.Warn("event not delivered: delivery stopped", zap.Int("attempt", attempt))
			return
		}
		wait *= 2
	}
}

// parameters are Invoke's fields, the event as Payload byte for byte.
func (r *Rule) parameters(event []byte) json.RawMessage {
	p := make([]byte, 0, len(event)+len(r.cfg.Function)+64)
	name, _ := json.Marshal(r.cfg.Function)
	p = append(p, `{"FunctionName":`...)
	p = append(p, name...)
	p = append(p, `,"InvocationType":"Event","Payload":`...)
	p = append(p, event...)
	return append(p, '}')
}
