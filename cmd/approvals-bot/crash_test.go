package main

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/internal/faultproxy"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

// A click the bot acknowledged survives the replica that acknowledged it.
// The bot acks a decision only once it is recorded (the approval claimed):
// while the claim's write is held by a slow DynamoDB the click is not
// acked (were the replica to die then, Slack would show the person an
// error, and nothing acknowledged is lost). A replica SIGKILLed right after
// the ack, its SendTaskSuccess held by a slow Step Functions, leaves a
// recorded claim: another replica's sweep resumes it once the claim's lease
// has passed, exactly once, and updates the message.
func TestAckedClickSurvivesAKilledReplica(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	stack, err := devstack.Start(ctx, devstack.Options{DynamoDBEndpoint: ddbEndpoint, Replicas: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer stack.Close()
	// The bots reach DynamoDB through a proxy that can hold the claim.
	var holdID atomic.Pointer[string]
	claimHeld, releaseClaim := make(chan struct{}), make(chan struct{})
	proxy, err := faultproxy.Start(faultproxy.Options{Target: ddbEndpoint, Service: faultproxy.DynamoDB,
		Before: func(ctx context.Context, op string, body []byte) {
			id := holdID.Load()
			if op != "PutItem" || id == nil || !bytes.Contains(body, []byte(*id)) || !bytes.Contains(body, []byte(`"claimed"`)) || !holdID.CompareAndSwap(id, nil) {
				return
			}
			close(claimHeld)
			select {
			case <-releaseClaim:
			case <-ctx.Done():
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	env := append([]string{"APPROVALS_CLAIM_LEASE=10s", "APPROVALS_SWEEP_INTERVAL=1s"}, stack.Env()...)
	env = append(env, "AWS_ENDPOINT_URL_DYNAMODB="+proxy.URL()) // the last value of a name wins

	first := startBinary(t, env)
	if err := stack.Slack.WaitConnections(ctx, 1); err != nil {
		t.Fatalf("the bot never connected: %v\n%s", err, first.stderr)
	}
	p, err := stack.Request(ctx, "killed-after-ack", map[string]any{
		"channel": "C0KILL", "approvers": []string{"U0ALICE"}, "title": "Ship it?",
	})
	if err != nil {
		t.Fatal(err)
	}
	resuming, _ := stack.SFN.StallNext("SendTaskSuccess") // held until its caller is gone
	holdID.Store(&p.Response.ApprovalID)
	id, err := stack.Slack.Click("U0ALICE", p.Response.Channel, p.Response.TS, "approve", p.Response.ApprovalID)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-claimHeld:
	case <-ctx.Done():
		t.Fatalf("the claim never reached DynamoDB\n%s", first.stderr)
	}
	for _, a := range stack.Slack.Acks() {
		if a.EnvelopeID == id {
			t.Fatal("the click was acked before its decision was recorded")
		}
	}
	close(releaseClaim)
	if _, err := stack.Slack.WaitAck(ctx, id); err != nil {
		t.Fatalf("the click was not acked: %v\n%s", err, first.stderr)
	}
	select {
	case <-resuming:
	case <-ctx.Done():
		t.Fatalf("the bot never resumed the execution\n%s", first.stderr)
	}
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.exited
	first.exited <- nil // for the cleanup; its SendTaskSuccess went with it, never applied

	a, err := stack.Service.Get(ctx, p.Response.ApprovalID)
	if err != nil {
		t.Fatal(err)
	}
	if stack.SFN.Outcome(p.Token).State != stepfunctionstest.StateOpen || a.Status != workflow.StatusClaimed || a.Decision == nil || a.Decision.DecidedBy != "U0ALICE" {
		t.Fatalf("after the kill: task %+v, approval %s decided by %+v; want the task open and the click recorded (claimed)", stack.SFN.Outcome(p.Token), a.Status, a.Decision)
	}

	killed := time.Now()
	second := startBinary(t, env)
	o, err := stack.WaitResumed(ctx, p.Token)
	t.Logf("resumed by the second replica %s after the kill", time.Since(killed).Round(time.Millisecond))
	if err != nil || o.State != stepfunctionstest.StateSucceeded || !strings.Contains(o.Output, `"decidedBy":"U0ALICE"`) {
		t.Fatalf("outcome = %+v, %v\n%s", o, err, second.stderr)
	}
	if err := stack.Slack.WaitFor(ctx, func() bool {
		m, _ := stack.Slack.Message(p.Response.Channel, p.Response.TS)
		return m.Updates > 0 && !strings.Contains(string(m.Blocks), `"type":"button"`)
	}); err != nil {
		t.Fatalf("the message still shows buttons: %v\n%s", err, second.stderr)
	}
	t.Logf("message updated %s after the kill", time.Since(killed).Round(time.Millisecond))
	if n := stack.SFN.Successes(); n != 1 {
		t.Errorf("%d resumes, want 1", n)
	}
	if f := stack.Slack.Failures(); len(f) != 0 {
		t.Errorf("Slack showed errors: %v", f)
	}
}
