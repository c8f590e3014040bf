package devstack_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/lambdas/notifier"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

func TestApproveDraftEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2)
	p := e.request(nil)

	m := e.message(p)
	var labels []string
	for _, b := range fakeslack.ButtonActions(m.Blocks) {
		labels = append(labels, b.Text)
		if b.Value != p.Response.ApprovalID {
			t.Errorf("button %q carries %q, want the approval ID", b.Text, b.Value)
		}
	}
	for _, o := range fakeslack.MenuOptions(m.Blocks) {
		labels = append(labels, o.ActionID+":"+o.Text)
		if o.BlockID != p.Response.ApprovalID {
			t.Errorf("menu %s is in block %q, want the approval ID", o.ActionID, o.BlockID)
		}
	}
	// The short message: five buttons, the rest in the ⋯ menu.
	if got, want := strings.Join(labels, "|"), "Approve draft 1|Approve draft 2|Reject|For non-engineers|Shorter|"+
		"more:Other changes…|more:Approve with comment|more:Skip|more:Hand over|more:Withdraw request"; got != want {
		t.Errorf("buttons = %s, want %s", got, want)
	}
	for _, want := range []string{"Publish post", "second draft", "Step Functions", "<@" + alice + ">", "<!subteam^" + editors} {
		if !strings.Contains(blocksText(m), want) {
			t.Errorf("request message lacks %q", want)
		}
	}

	// The requester and a stranger are refused privately; nothing changes.
	e.click(bob, p, "Approve draft 1")
	e.ephemeralTo(bob, "You requested this approval")
	e.click(mallory, p, "Approve draft 1")
	e.ephemeralTo(mallory, "not one of the approvers")
	if o := e.stack.SFN.Outcome(p.Token); o.State != stepfunctionstest.StateOpen {
		t.Fatalf("a refused click changed the task: %+v", o)
	}

	e.click(alice, p, "Approve draft 2")
	o := e.resumed(p)
	if o.State != stepfunctionstest.StateSucceeded {
		t.Fatalf("outcome = %+v, want succeeded", o)
	}
	out := decode(t, o.Output)
	want := map[string]any{"approvalId": p.Response.ApprovalID, "action": "approved", "draftIndex": 1.0, "selectedDraft": "second draft", "decidedBy": alice}
	for k, v := range want {
		if out[k] != v {
			t.Errorf("output[%s] = %v, want %v (output %s)", k, out[k], v, o.Output)
		}
	}
	if at, err := time.Parse(time.RFC3339, fmt.Sprint(out["decidedAt"])); err != nil || at.Location() != time.UTC {
		t.Errorf("decidedAt %v is not RFC 3339 UTC", out["decidedAt"])
	}

	final := e.settled(p)
	for _, want := range []string{"<@" + alice + ">", "second draft"} {
		if !strings.Contains(blocksText(final), want) {
			t.Errorf("updated message lacks %q: %s", want, final.Blocks)
		}
	}
	e.waitFor("a thread reply", func() bool { return len(e.stack.Slack.Replies(channel, p.Response.TS)) == 1 })

	// A Lambda retry with the same token posts nothing and answers the same.
	raw, _ := json.Marshal(mergePayload(e.payload(nil), p))
	again, err := e.stack.Invoke(e.ctx(), raw)
	if err != nil || again != p.Response {
		t.Errorf("retry = %+v, %v; want %+v", again, err, p.Response)
	}
	if n := len(e.stack.Slack.Messages(channel)); n != 2 { // request + thread reply
		t.Errorf("channel holds %d messages, want the request and its reply", n)
	}
}

// mergePayload rebuilds the payload the notifier got for p.
func mergePayload(payload map[string]any, p devstack.Pending) map[string]any {
	payload["taskToken"] = p.Token
	payload["executionArn"] = p.ExecutionARN
	payload["stateName"] = "Approve"
	return payload
}

func TestRejectWithReasonInThread(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1)
	root := e.stack.Slack.PostMessage(channel, "Nightly certificate batch")
	p := e.request(func(m map[string]any) { m["threadTs"] = root; delete(m, "drafts") })
	if m := e.message(p); m.ThreadTS != root {
		t.Fatalf("request posted in thread %q, want %q", m.ThreadTS, root)
	}
	e.click(carol, p, "Reject")
	view := e.openedView(carol, "reject")
	id, err := e.stack.Slack.Submit(carol, view.ID, map[string]map[string]any{
		"reason": {"reason": map[string]any{"type": "plain_text_input", "value": "The tone is off."}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.stack.Slack.WaitAck(e.ctx(), id); err != nil {
		t.Fatal(err)
	}
	o := e.resumed(p)
	if o.State != stepfunctionstest.StateFailed || o.Error != "Rejected" || o.Cause != "The tone is off." {
		t.Fatalf("outcome = %+v, want Rejected with the reason", o)
	}
	final := e.settled(p)
	if !strings.Contains(string(final.Blocks), "The tone is off.") {
		t.Errorf("updated message lacks the reason: %s", final.Blocks)
	}
	e.waitFor("the decision reply in the request's thread", func() bool {
		return len(e.stack.Slack.Replies(channel, root)) == 2
	})
}

// openedView waits for the modal the bot opened for user.
func (e *env) openedView(user, callbackID string) fakeslack.View {
	e.t.Helper()
	var found fakeslack.View
	e.waitFor("a "+callbackID+" modal for "+user, func() bool {
		for _, v := range e.stack.Slack.Views(user) {
			if v.CallbackID == callbackID && !v.Closed {
				found = v
				return true
			}
		}
		return false
	})
	return found
}

func TestRequestChangesValidatesThenResumes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1)
	p := e.request(nil)
	e.click(alice, p, "Other changes…")
	view := e.openedView(alice, "revise")

	// Nothing chosen and nothing written: the modal shows an error, nothing changes.
	id, err := e.stack.Slack.Submit(alice, view.ID, map[string]map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	ack, err := e.stack.Slack.WaitAck(e.ctx(), id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ack.Payload), `"response_action":"errors"`) {
		t.Fatalf("empty submission acked with %s, want response_action errors", ack.Payload)
	}
	if o := e.stack.SFN.Outcome(p.Token); o.State != stepfunctionstest.StateOpen {
		t.Fatalf("an invalid submission changed the task: %+v", o)
	}

	id, err = e.stack.Slack.Submit(alice, view.ID, map[string]map[string]any{
		"preset":   {"preset": map[string]any{"type": "radio_buttons", "selected_option": map[string]any{"value": "Shorter"}}},
		"feedback": {"feedback": map[string]any{"type": "plain_text_input", "value": "Cut the intro."}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.stack.Slack.WaitAck(e.ctx(), id); err != nil {
		t.Fatal(err)
	}
	out := decode(t, e.resumed(p).Output)
	if out["action"] != "revise" || out["preset"] != "Shorter" || out["feedback"] != "Shorter\nCut the intro." {
		t.Errorf("output = %v", out)
	}
	e.settled(p)
}

func TestSkipAndGroupMember(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1)
	p := e.request(func(m map[string]any) { m["approvers"] = []string{editors} })
	e.click(carol, p, "Skip")
	out := decode(t, e.resumed(p).Output)
	if out["action"] != "skip" || out["decidedBy"] != carol {
		t.Errorf("output = %v", out)
	}
	if _, ok := out["draftIndex"]; ok {
		t.Errorf("skip carries a draftIndex: %v", out)
	}
}

func TestInvalidRequestPostsNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, -1)
	tests := map[string]func(map[string]any){
		"no approvers":    func(m map[string]any) { delete(m, "approvers") },
		"channel name":    func(m map[string]any) { m["channel"] = "#publish" },
		"too many drafts": func(m map[string]any) { m["drafts"] = []string{"1", "2", "3", "4", "5", "6"} },
		"unknown field":   func(m map[string]any) { m["approver"] = alice },
	}
	for name, edit := range tests {
		_, err := e.stack.Request(e.ctx(), "invalid-"+strings.ReplaceAll(name, " ", "-"), e.payload(edit))
		var invalid *notifier.InvalidApprovalRequest
		if !errors.As(err, &invalid) {
			t.Errorf("%s: err = %v, want InvalidApprovalRequest", name, err)
		}
	}
	if n := len(e.stack.Slack.Messages(channel)); n != 0 {
		t.Errorf("invalid requests posted %d messages", n)
	}
	e.request(nil) // so the secrets check sees a logged approval
}

func TestTwentyConcurrentClicksResumeOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2)
	p := e.request(nil)
	action := e.button(p, "Approve draft 1")
	var wg sync.WaitGroup
	for i := range 20 {
		user := []string{alice, carol}[i%2]
		wg.Go(func() {
			id, err := e.stack.Slack.Click(user, channel, p.Response.TS, action, p.Response.ApprovalID)
			if err != nil {
				t.Errorf("click: %v", err)
				return
			}
			if _, err := e.stack.Slack.WaitAck(e.ctx(), id); err != nil {
				t.Errorf("ack: %v", err)
			}
		})
	}
	wg.Wait()
	e.resumed(p)
	e.settled(p)
	if n := e.stack.SFN.Successes(); n != 1 {
		t.Errorf("%d resumes, want exactly 1", n)
	}
	if f := e.stack.Slack.Failures(); len(f) != 0 {
		t.Errorf("%d clicks were never acked", len(f))
	}
}

func TestTwoReplicasShareABurst(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2)
	const n = 30
	pending := make([]devstack.Pending, n)
	for i := range pending {
		pending[i] = e.request(func(m map[string]any) { delete(m, "drafts") })
	}
	var wg sync.WaitGroup
	for _, p := range pending {
		wg.Go(func() {
			id, err := e.stack.Slack.Click(alice, channel, p.Response.TS, "approve", p.Response.ApprovalID)
			if err == nil {
				_, err = e.stack.Slack.WaitAck(e.ctx(), id)
			}
			if err != nil {
				t.Errorf("click: %v", err)
			}
		})
	}
	wg.Wait()
	for _, p := range pending {
		e.resumed(p)
	}
	if got := e.stack.SFN.Successes(); got != n {
		t.Errorf("%d resumes, want %d", got, n)
	}
	replicas := map[string]bool{}
	for _, line := range strings.Split(e.logs.String(), "\n") {
		if strings.Contains(line, `"msg":"decided"`) {
			var l struct{ Replica int }
			_ = json.Unmarshal([]byte(line), &l)
			replicas[fmt.Sprint(l.Replica)] = true
		}
	}
	if len(replicas) != 2 {
		t.Logf("decisions were logged by replicas %v (Slack picks a random connection per envelope)", replicas)
	}
}

func TestBotRestartBetweenRequestAndDecision(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1)
	p := e.request(nil)
	if err := e.stack.StopBot(0); err != nil {
		t.Fatalf("stop: %v", err)
	}
	e.waitFor("the socket to close", func() bool { return e.stack.Slack.Connections() == 0 })
	if err := e.stack.StartBot(0); err != nil {
		t.Fatal(err)
	}
	if err := e.stack.Slack.WaitConnections(e.ctx(), 1); err != nil {
		t.Fatal(err)
	}
	e.click(alice, p, "Approve draft 1")
	if o := e.resumed(p); o.State != stepfunctionstest.StateSucceeded {
		t.Fatalf("outcome = %+v", o)
	}
}

func TestCrashBetweenClaimAndResumeIsCompletedLater(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1)
	p := e.request(nil)
	// Step Functions is unreachable for the first attempt (all SDK retries):
	// the approval stays claimed with Alice's decision, as if the replica
	// had died right after the claim.
	e.stack.SFN.FailNext("SendTaskSuccess", 3, "ServiceUnavailable")
	e.click(alice, p, "Approve draft 2")
	e.ephemeralTo(alice, "Could not")
	if o := e.stack.SFN.Outcome(p.Token); o.State != stepfunctionstest.StateOpen {
		t.Fatalf("outcome = %+v, want the task still open", o)
	}
	a, err := e.stack.Service.Get(e.ctx(), p.Response.ApprovalID)
	if err != nil || a.Status != workflow.StatusClaimed {
		t.Fatalf("approval = %s, %v; want claimed", a.Status, err)
	}
	// Once the lease runs out, the sweeper completes Alice's decision.
	e.offset.Add(int64(workflow.DefaultClaimLease + time.Second))
	out := decode(t, e.resumed(p).Output)
	if out["decidedBy"] != alice || out["draftIndex"] != 1.0 {
		t.Errorf("output = %v, want Alice's draft 2", out)
	}
	e.settled(p)
	if n := e.stack.SFN.Successes(); n != 1 {
		t.Errorf("%d resumes, want 1", n)
	}
}

func TestExpiredTaskUpdatesMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1)
	timedOut := e.request(nil)
	e.stack.SFN.TimeOut(timedOut.Token)
	e.click(alice, timedOut, "Approve draft 1")
	m := e.settled(timedOut)
	if !strings.Contains(strings.ToLower(string(m.Blocks)), "expired") {
		t.Errorf("message does not say it expired: %s", m.Blocks)
	}

	// Nobody decides before the deadline: the sweeper closes the task and
	// leaves no live button.
	overdue := e.request(func(m map[string]any) { m["timeoutSeconds"] = 60 })
	e.offset.Add(int64(2 * time.Minute))
	o := e.resumed(overdue)
	if o.State != stepfunctionstest.StateFailed || o.Error != workflow.ErrorApprovalExpired {
		t.Errorf("outcome = %+v, want %s", o, workflow.ErrorApprovalExpired)
	}
	e.settled(overdue)
}

func TestPendingCommandListsWhatICanDecide(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1)
	mine := e.request(nil)
	notMine := e.request(func(m map[string]any) { m["approvers"] = []string{alice} })
	id, err := e.stack.Slack.Slash(carol, channel, "/approvals", "pending")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.stack.Slack.WaitAck(e.ctx(), id); err != nil {
		t.Fatal(err)
	}
	var body string
	e.waitFor("the private answer", func() bool {
		posts := e.stack.Slack.ResponsePosts()
		if len(posts) == 0 {
			return false
		}
		body = string(posts[0].Body)
		return true
	})
	titleOf := func(p devstack.Pending) string {
		a, _ := e.stack.Service.Get(e.ctx(), p.Response.ApprovalID)
		return a.Title
	}
	if !strings.Contains(body, titleOf(mine)) || strings.Contains(body, titleOf(notMine)) {
		t.Errorf("carol's pending list is wrong: %s", body)
	}
	if !strings.Contains(body, `"response_type":"ephemeral"`) {
		t.Errorf("the answer is not private: %s", body)
	}
}

func TestBadEnvelopesDoNotStopTheBot(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1)
	p := e.request(nil)
	for _, raw := range []string{
		`not json`,
		`{"type":"interactive","envelope_id":"bad-1","payload":"oops"}`,
		`{"type":"interactive","envelope_id":"bad-2","payload":{"type":"block_actions","actions":[{"action_id":"approve","value":"ap_unknown"}]}}`,
		`{"type":"mystery","envelope_id":"bad-3","payload":{}}`,
		`{"type":"slash_commands","envelope_id":"bad-4","payload":{"command":"/approvals","text":"dance"}}`,
	} {
		if err := e.stack.Slack.SendRaw([]byte(raw)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.stack.Slack.SendEvent("app_mention", map[string]any{"type": "app_mention", "text": "hi"}); err != nil {
		t.Fatal(err)
	}
	e.click(alice, p, "Approve draft 1")
	e.resumed(p)
}

func TestDisconnectInTheMiddleOfABurst(t *testing.T) {
	t.Parallel()
	// Slack's own ack timeout: a click on a dying socket fails after it.
	e := newEnv(t, 2, func(o *devstack.Options) { o.Slack.AckTimeout = 0 })
	const n = 16
	pending := make([]devstack.Pending, n)
	for i := range pending {
		pending[i] = e.request(func(m map[string]any) { delete(m, "drafts") })
	}
	clickUntilAcked := func(p devstack.Pending) {
		// A person whose click hit a closed socket sees an error in Slack
		// once it goes unacked, and clicks again; interactive payloads are
		// not redelivered.
		for e.ctx().Err() == nil {
			// A click whose ack Slack gave up on may still have reached
			// the bot and decided: the buttons are gone, nothing to retry.
			if e.stack.SFN.Outcome(p.Token).State != stepfunctionstest.StateOpen {
				return
			}
			id, err := e.stack.Slack.Click(alice, channel, p.Response.TS, "approve", p.Response.ApprovalID)
			if err != nil {
				_ = e.stack.Slack.WaitConnections(e.ctx(), 2)
				continue
			}
			if e.ackedOrFailed(id) {
				return
			}
		}
		t.Errorf("click on %s never acked", p.Response.ApprovalID)
	}
	var wg sync.WaitGroup
	for i, p := range pending {
		if i == n/2 {
			e.stack.Slack.Disconnect("refresh_requested")
		}
		wg.Go(func() { clickUntilAcked(p) })
	}
	wg.Wait()
	for _, p := range pending {
		e.resumed(p)
	}
	if got := e.stack.SFN.Successes(); got != n {
		t.Errorf("%d resumes, want %d", got, n)
	}
}

func TestSlackOutageDuringUpdateDoesNotBlockResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1)
	p := e.request(nil)
	e.stack.Slack.FailMethod("chat.update", -1, 503)
	e.click(alice, p, "Approve draft 1")
	if o := e.resumed(p); o.State != stepfunctionstest.StateSucceeded {
		t.Fatalf("outcome = %+v", o)
	}
	if m := e.message(p); len(fakeslack.ButtonActions(m.Blocks)) == 0 {
		t.Fatalf("message updated during the outage")
	}
	e.waitFor("failed update attempts", func() bool { return e.stack.Slack.Calls("chat.update") >= 2 })
	e.stack.Slack.Heal("chat.update")
	e.settled(p)
	e.eventually("the approval to be marked synced", func() bool {
		a, err := e.stack.Service.Get(e.ctx(), p.Response.ApprovalID)
		return err == nil && a.MessageSynced
	})
}

func TestNotifierRetryAfterSlackFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t, -1)
	token := e.stack.SFN.StartTask("arn:aws:states:us-east-1:123456789012:execution:demo:retry", "Approve")
	e.mu.Lock()
	e.tokens = append(e.tokens, token)
	e.mu.Unlock()
	raw, _ := json.Marshal(mergePayload(e.payload(nil), devstack.Pending{Token: token, ExecutionARN: "arn:aws:states:us-east-1:123456789012:execution:demo:retry"}))

	e.stack.Slack.FailMethod("chat.postMessage", 1, 500)
	_, err := e.stack.Invoke(e.ctx(), raw)
	var postFailed *notifier.SlackPostFailed
	if !errors.As(err, &postFailed) {
		t.Fatalf("err = %v, want SlackPostFailed", err)
	}
	first, err := e.stack.Invoke(e.ctx(), raw) // Step Functions' Retry
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	second, err := e.stack.Invoke(e.ctx(), raw)
	if err != nil || second != first {
		t.Fatalf("second retry = %+v, %v; want %+v", second, err, first)
	}
	if n := len(e.stack.Slack.Messages(channel)); n != 1 {
		t.Errorf("%d messages, want 1", n)
	}
}
