package sfnlocal

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// The source and detail-type of the events Options.Events receives, as an
// EventBridge rule matches them.
const (
	EventSource     = "aws.states"
	EventDetailType = "Step Functions Execution Status Change"
)

// defaultEventBuffer is Options.EventBuffer's default.
const defaultEventBuffer = 1000

// eventDataLimit is how much escaped input and output an event carries:
// AWS leaves out the input when input and output together exceed 248 KB,
// and the output when it alone does (dg/cw-events.html, "EventBridge
// payloads"). That KB means KiB is our reading; AWS does not say.
const eventDataLimit = 248 * 1024

// statusChange is what an execution status change event reports, taken
// when the status changed; the document is built at delivery.
type statusChange struct {
	at                        time.Time
	arn, machineArn, name     string
	status                    string
	start, stop               time.Time // stop is zero while running
	input, output             string
	hasOutput                 bool
	errName, cause            string
	redriveStatus, redriveWhy string
}

// statusChangedLocked queues the status change event of x's current
// status; x.mu is held and the history event that changed it is recorded.
// Express executions emit none, as on AWS.
func (x *execution) statusChangedLocked() {
	q := x.e.events
	if q == nil || x.express {
		return
	}
	at := x.start
	if x.status != StatusRunning {
		at = x.stop
	}
	rs, why := redriveStatus(x.status)
	q.enqueue(statusChange{
		at: at, arn: x.arn, machineArn: x.m.arn, name: x.name, status: x.status,
		start: x.start, stop: x.stop, input: x.inText, output: x.output, hasOutput: x.status == StatusSucceeded,
		errName: x.errName, cause: x.cause, redriveStatus: rs, redriveWhy: why,
	})
}

// redriveStatus is an execution's redriveStatus and redriveStatusReason.
// AWS gives a FAILED, TIMED_OUT or ABORTED execution REDRIVABLE; this
// engine cannot redrive, so it says so instead.
func redriveStatus(status string) (string, string) {
	switch status {
	case StatusRunning, StatusSucceeded:
		return "NOT_REDRIVABLE", "Execution is " + status + " and cannot be redriven"
	}
	return "NOT_REDRIVABLE", "sfn-local does not support RedriveExecution"
}

// eventQueue delivers status change events to the sink one at a time, in
// the order they happened, from a goroutine of its own.
type eventQueue struct {
	sink    func(ctx context.Context, event []byte)
	ch      chan statusChange
	log     *zap.Logger
	region  string
	account string

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

func newEventQueue(e *Engine, sink func(context.Context, []byte), size int) *eventQueue {
	if size <= 0 {
		size = defaultEventBuffer
	}
	q := &eventQueue{sink: sink, ch: make(chan statusChange, size), log: e.log, region: e.region, account: e.acct, done: make(chan struct{})}
	q.ctx, q.cancel = context.WithCancel(context.Background())
	go q.run()
	return q
}

// enqueue never blocks: an event that finds the queue full is dropped and
// logged, and so, silently, is one that comes after stop.
func (q *eventQueue) enqueue(c statusChange) {
	if q.ctx.Err() != nil {
		return
	}
	select {
	case q.ch <- c:
	default:
		q.log.Warn("execution status change event dropped: the event sink is behind and the queue is full",
			zap.String("execution_arn", c.arn), zap.String("status", c.status), zap.Int("queue", cap(q.ch)))
	}
}

func (q *eventQueue) run() {
	defer close(q.done)
	for {
		select {
		case <-q.ctx.Done():
			return
		case c := <-q.ch:
			if q.ctx.Err() != nil {
				return
			}
			q.deliver(c)
		}
	}
}

// deliver calls the sink, surviving its panic.
func (q *eventQueue) deliver(c statusChange) {
	defer func() {
		if v := recover(); v != nil {
			q.log.Error("execution status change event sink panicked",
				zap.String("execution_arn", c.arn), zap.String("status", c.status), zap.String("panic", fmt.Sprint(v)))
		}
	}()
	q.sink(q.ctx, c.document(newID(), q.region, q.account))
}

// stop ends delivery: queued events are dropped, a sink call under way
// sees its context cancelled, and stop returns once it has returned.
func (q *eventQueue) stop() {
	q.cancel()
	<-q.done
}

// document renders the event as EventBridge delivers it. The members and
// their order are those of AWS's samples in the Step Functions Developer
// Guide, "EventBridge (CloudWatch Events) for Step Functions execution
// status changes" (dg/cw-events.html, "Step Functions event examples"):
// version, id, detail-type, source, account, time, region, resources,
// detail; and in detail executionArn, stateMachineArn, name, status,
// startDate, stopDate (epoch milliseconds; null while running), input,
// output, stateMachineVersionArn, stateMachineAliasArn, redriveCount,
// redriveDate, redriveStatus, redriveStatusReason, inputDetails,
// outputDetails, error and cause, each null when it has no value. (The
// 2019 page, awsdocs/aws-step-functions-developer-guide
// doc_source/cw-events.md, shows the first nine detail members only; the
// others came with versions, aliases and redrive in 2023.) This engine has
// no versions, aliases or redrive, so those are null, null, 0 and null.
func (c statusChange) document(id, region, account string) []byte {
	detail := jsonvalue.NewObject(18)
	detail.Set("executionArn", c.arn)
	detail.Set("stateMachineArn", c.machineArn)
	detail.Set("name", c.name)
	detail.Set("status", c.status)
	detail.Set("startDate", jsonvalue.Int(c.start.UnixMilli()))
	detail.Set("stopDate", nil)
	if !c.stop.IsZero() {
		detail.Set("stopDate", jsonvalue.Int(c.stop.UnixMilli()))
	}
	input, inputDetails, output, outputDetails := c.data()
	detail.Set("input", input)
	detail.Set("output", output)
	detail.Set("stateMachineVersionArn", nil)
	detail.Set("stateMachineAliasArn", nil)
	detail.Set("redriveCount", jsonvalue.Int(0))
	detail.Set("redriveDate", nil)
	detail.Set("redriveStatus", c.redriveStatus)
	detail.Set("redriveStatusReason", c.redriveWhy)
	detail.Set("inputDetails", inputDetails)
	detail.Set("outputDetails", outputDetails)
	detail.Set("error", orNull(c.errName))
	detail.Set("cause", orNull(c.cause))

	doc := jsonvalue.ObjectOf(
		"version", "0",
		"id", id,
		"detail-type", EventDetailType,
		"source", EventSource,
		"account", account,
		"time", c.at.UTC().Format("2006-01-02T15:04:05Z"),
		"region", region,
		"resources", []any{c.arn},
		"detail", detail,
	)
	return []byte(jsonvalue.Encode(doc))
}

// data is the event's input and output with their details, each left out
// (null, included false) past eventDataLimit. Only a SUCCEEDED execution
// has an output; the others have null output and outputDetails.
func (c statusChange) data() (input, inputDetails, output, outputDetails any) {
	inLen := len(jsonvalue.Encode(c.input))
	outLen := 0
	if c.hasOutput {
		outLen = len(jsonvalue.Encode(c.output))
	}
	input, inputDetails = c.input, included(true)
	if inLen+outLen > eventDataLimit {
		input, inputDetails = nil, included(false)
	}
	if !c.hasOutput {
		return input, inputDetails, nil, nil
	}
	output, outputDetails = c.output, included(true)
	if outLen > eventDataLimit {
		output, outputDetails = nil, included(false)
	}
	return input, inputDetails, output, outputDetails
}

func included(b bool) *jsonvalue.Object { return jsonvalue.ObjectOf("included", b) }

func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}
