package definitions_test

import (
	"context"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// heartbeatDefinition waits for an approval whose Task must hear from the
// bot every 150 s, and asks the bot for a heartbeat every 60 s.
const heartbeatDefinition = `{
  "StartAt": "Approve",
  "States": {
    "Approve": {
      "Type": "Task",
      "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken",
      "Parameters": {
        "FunctionName": "` + notifierFunction + `",
        "Payload": {
          "taskToken.$": "$$.Task.Token",
          "executionArn.$": "$$.Execution.Id",
          "stateName.$": "$$.State.Name",
          "channel": "` + channel + `",
          "approvers": ["` + approver + `"],
          "requestedBy": "` + requester + `",
          "title": "Keep me alive",
          "timeoutSeconds": 3600,
          "heartbeatSeconds": 60
        }
      },
      "TimeoutSeconds": 3600,
      "HeartbeatSeconds": 150,
      "End": true
    }
  }
}`

// The bot's sweep keeps a Task with HeartbeatSeconds alive through the
// real Step Functions client (SendTaskHeartbeat) on the local engine's
// clock; without the sweep the same Task times out.
func TestHeartbeatsKeepTheTaskAlive(t *testing.T) {
	t.Parallel()
	t.Run("swept", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		arn := h.startDefinition("heartbeats", heartbeatDefinition, map[string]any{})
		a := h.nextApproval()
		beats := 0
		for range 10 { // ten minutes, four heartbeat timeouts' worth
			h.clock.Advance(time.Minute)
			rep, err := h.service.Recover(context.Background())
			if err != nil || len(rep.HeartbeatErrors) != 0 {
				t.Fatalf("Recover = %+v, %v", rep, err)
			}
			beats += rep.Heartbeats
		}
		if beats != 10 {
			t.Errorf("%d heartbeats in ten minutes, want 10", beats)
		}
		h.decide(a, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: workflow.NoDraft})
		if x := h.wait(arn); x.Status != "SUCCEEDED" {
			t.Fatalf("execution %s (%s), want SUCCEEDED\n%s", x.Status, x.Error, h.historyText(arn))
		}
	})
	t.Run("not swept", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		arn := h.startDefinition("no-heartbeats", heartbeatDefinition, map[string]any{})
		h.nextApproval()
		h.clock.Advance(150 * time.Second)
		h.failed(arn, "States.Timeout", "")
	})
}
