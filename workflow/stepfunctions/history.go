package stepfunctions

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

// maxHistoryPages bounds a history read: an execution holds at most
// 25,000 events, 25 pages of 1000; the margin covers smaller pages.
const maxHistoryPages = 50

// verdict is what the events read so far say about a candidate event.
type verdict int

const (
	notOurs verdict = iota
	isOurs
	undecided // the deciding event is older than those read so far
)

// result recognises our result in an execution history.
type result interface {
	// candidate reports whether e may be our result.
	candidate(e types.HistoryEvent) bool
	// ours decides a candidate, given the events read so far by ID.
	ours(e types.HistoryEvent, byID map[int64]types.HistoryEvent) verdict
}

// landed reads the execution history, newest first, until it finds our
// result or runs out of events.
func (r *Resumer) landed(ctx context.Context, executionARN string, want result) (bool, error) {
	byID := map[int64]types.HistoryEvent{}
	var pending []types.HistoryEvent
	var next *string
	for range maxHistoryPages {
		callCtx, cancel := r.callContext(ctx)
		page, err := r.client.GetExecutionHistory(callCtx, &sfn.GetExecutionHistoryInput{
			ExecutionArn:         aws.String(executionARN),
			IncludeExecutionData: aws.Bool(true),
			MaxResults:           1000,
			ReverseOrder:         true,
			NextToken:            next,
		})
		cancel()
		if err != nil {
			return false, err
		}
		for _, e := range page.Events {
			byID[e.Id] = e
			if want.candidate(e) {
				pending = append(pending, e)
			}
		}
		undecidedYet := pending[:0]
		for _, e := range pending {
			switch want.ours(e, byID) {
			case isOurs:
				return true, nil
			case undecided:
				undecidedYet = append(undecidedYet, e)
			}
		}
		pending = undecidedYet
		if page.NextToken == nil {
			return false, nil
		}
		next = page.NextToken
	}
	return false, fmt.Errorf("execution history is longer than %d pages", maxHistoryPages)
}

// succeeded is a TaskSucceeded whose output carries the approval's ID;
// the output is unique per approval, so such an event is ours.
type succeeded struct{ approvalID string }

func (s succeeded) candidate(e types.HistoryEvent) bool {
	return s.approvalID != "" && e.Type == types.HistoryEventTypeTaskSucceeded && e.TaskSucceededEventDetails != nil &&
		approvalIDIn(e.TaskSucceededEventDetails.Output) == s.approvalID
}

func (s succeeded) ours(types.HistoryEvent, map[int64]types.HistoryEvent) verdict { return isOurs }

// failed is a TaskFailed with our error and cause, on the task whose
// TaskSubmitted output (the notifier's answer) carries the approval's ID.
type failed struct{ approvalID, errorName, cause string }

func (f failed) candidate(e types.HistoryEvent) bool {
	d := e.TaskFailedEventDetails
	return f.approvalID != "" && e.Type == types.HistoryEventTypeTaskFailed && d != nil &&
		aws.ToString(d.Error) == f.errorName && aws.ToString(d.Cause) == f.cause
}

// ours follows previousEventId back from the failure to the task's
// TaskSubmitted; the chain stays within the task even when parallel
// branches interleave their events.
func (f failed) ours(e types.HistoryEvent, byID map[int64]types.HistoryEvent) verdict {
	for prev := e.PreviousEventId; prev > 0; {
		p, ok := byID[prev]
		if !ok {
			return undecided
		}
		switch p.Type {
		case types.HistoryEventTypeTaskSubmitted:
			if p.TaskSubmittedEventDetails != nil && approvalIDIn(p.TaskSubmittedEventDetails.Output) == f.approvalID {
				return isOurs
			}
			return notOurs
		case types.HistoryEventTypeTaskScheduled, types.HistoryEventTypeTaskStateEntered, types.HistoryEventTypeExecutionStarted:
			return notOurs
		}
		if p.PreviousEventId >= p.Id {
			return notOurs
		}
		prev = p.PreviousEventId
	}
	return notOurs
}

// approvalIDIn returns the approvalId of a JSON output: at the top level
// (our SendTaskSuccess output, or a notifier answer passed through) or in
// the Payload of a lambda:invoke result.
func approvalIDIn(output *string) string {
	if output == nil {
		return ""
	}
	var o struct {
		ApprovalID string          `json:"approvalId"`
		Payload    json.RawMessage `json:"Payload"`
	}
	if json.Unmarshal([]byte(*output), &o) != nil {
		return ""
	}
	if o.ApprovalID != "" || len(o.Payload) == 0 {
		return o.ApprovalID
	}
	var p struct {
		ApprovalID string `json:"approvalId"`
	}
	if json.Unmarshal(o.Payload, &p) != nil {
		return ""
	}
	return p.ApprovalID
}
