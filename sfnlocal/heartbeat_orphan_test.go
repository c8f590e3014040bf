package sfnlocal

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// firstFails fails the first call (after taking its token, as a notifier
// that posted but could not record its message does) and answers the rest.
type firstFails struct {
	mu     sync.Mutex
	tokens []string
	calls  chan task.Call
}

func (f *firstFails) Supports(string) bool { return true }

func (f *firstFails) Invoke(_ context.Context, call task.Call) (json.RawMessage, error) {
	f.mu.Lock()
	f.tokens = append(f.tokens, call.TaskToken)
	n := len(f.tokens)
	f.mu.Unlock()
	f.calls <- call
	if n == 1 {
		return nil, &task.Failure{Name: "SlackPostFailed", Cause: "posted, answer lost"}
	}
	return json.RawMessage(`{"StatusCode":200}`), nil
}

// The approvals notifier tells an orphaned request (its attempt failed and
// a Retry asked again with a new token) from a live one with a heartbeat,
// as AWS answers it: accepted on a waiting callback task without
// HeartbeatSeconds, recording no event; TaskTimedOut on the failed
// attempt's token.
func TestHeartbeatTellsAClosedAttemptFromAWaitingOne(t *testing.T) {
	t.Parallel()
	f := &firstFails{calls: make(chan task.Call, 2)}
	h := newHarness(t, f)
	arn := h.start(h.create(approval(`"Retry":[{"ErrorEquals":["SlackPostFailed"],"IntervalSeconds":1}],`)), `{}`)
	first := <-f.calls
	h.advance(2, time.Second) // the execution limit and the retry timer
	var second task.Call
	select {
	case second = <-f.calls:
	case <-ctx(t).Done():
		t.Fatal("the Retry did not invoke the task again")
	}
	if first.TaskToken == second.TaskToken {
		t.Fatal("the retried attempt got the failed attempt's token")
	}
	if err := h.e.SendTaskHeartbeat(ctx(t), SendTaskHeartbeatInput{TaskToken: first.TaskToken}); ErrorCode(err) != CodeTaskTimedOut {
		t.Errorf("heartbeat on the failed attempt's token = %v, want TaskTimedOut", err)
	}
	before := len(h.types(arn))
	if err := h.e.SendTaskHeartbeat(ctx(t), SendTaskHeartbeatInput{TaskToken: second.TaskToken}); err != nil {
		t.Errorf("heartbeat on the waiting attempt (no HeartbeatSeconds) = %v, want it accepted", err)
	}
	if after := len(h.types(arn)); after != before {
		t.Errorf("the heartbeat recorded %d history events, want none", after-before)
	}
	if err := h.e.SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: second.TaskToken, Output: `{}`}); err != nil {
		t.Fatal(err)
	}
	h.wait(arn)
	if err := h.e.SendTaskHeartbeat(ctx(t), SendTaskHeartbeatInput{TaskToken: second.TaskToken}); ErrorCode(err) != CodeTaskTimedOut {
		t.Errorf("heartbeat after the task succeeded = %v, want TaskTimedOut", err)
	}
}
