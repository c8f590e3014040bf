package slackbot

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/slackbot/pacing"
	"github.com/sfnapprovals/approvals/workflow"
)

func TestApprove(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{})

	env := h.click(approver, a, "approve")
	ack, err := h.slack.WaitAck(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	if len(ack.Payload) != 0 && string(ack.Payload) != "null" {
		t.Errorf("ack payload = %s, want empty", ack.Payload)
	}
	h.waitFor("outcome and reply", func() bool {
		return h.outcomeShown(a, "Approved") && len(h.slack.Replies(a.Channel, a.MessageTS)) == 1
	})
	task := h.task(a)
	out := output(t, task)
	if out["action"] != "approved" || out["decidedBy"] != approver || out["approvalId"] != a.ID {
		t.Errorf("output = %v", out)
	}
	if task.Results != 1 {
		t.Errorf("results = %d, want 1", task.Results)
	}
	if got, want := h.slack.Replies(a.Channel, a.MessageTS)[0].Text, "Approved by <@"+approver+">."; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
	h.waitFor("synced", func() bool { return h.get(a).MessageSynced })

	decidedLogs := h.logs.FilterMessage("decided").All()
	if len(decidedLogs) != 1 {
		t.Fatalf("%d decided log entries, want 1", len(decidedLogs))
	}
	fields := decidedLogs[0].ContextMap()
	for key, want := range map[string]string{"approval_id": a.ID, "slack_user": approver, "envelope_id": env,
		"execution_arn": a.ExecutionARN, "action": "approve"} {
		if fields[key] != want {
			t.Errorf("log field %s = %v, want %q", key, fields[key], want)
		}
	}
}

func TestApproveDraftInThread(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	root := h.slack.PostMessage(channel, "please review the drafts")
	a := h.request(workflow.Request{ThreadTS: root, Drafts: []string{"first", "second"}})
	if m := h.message(a); m.ThreadTS != root {
		t.Fatalf("request posted with thread_ts %q, want %q", m.ThreadTS, root)
	}

	h.click(approver, a, "approve_draft_1")
	h.waitFor("outcome", func() bool { return h.outcomeShown(a, "Approved draft 2") })
	out := output(t, h.task(a))
	if out["draftIndex"] != 1.0 || out["selectedDraft"] != "second" {
		t.Errorf("output = %v, want draftIndex 1 and selectedDraft second", out)
	}
	h.waitFor("reply in the thread", func() bool { return len(h.slack.Replies(channel, root)) == 2 })
	if got := h.slack.Replies(channel, root)[1].Text; got != "Approved draft 2 by <@"+approver+">." {
		t.Errorf("reply = %q", got)
	}
}

func TestRejectWithModal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{})

	h.click(approver, a, "reject")
	h.waitFor("modal", func() bool { return len(h.slack.Views(approver)) == 1 })
	v := h.slack.Views(approver)[0]
	if v.CallbackID != "reject" || v.PrivateMetadata != a.ID+" "+a.Channel+" "+a.MessageTS {
		t.Fatalf("view = %+v", v)
	}
	env, err := h.slack.Submit(approver, v.ID, map[string]map[string]any{
		"reason": {"reason": map[string]any{"type": "plain_text_input", "value": "Not this week"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.slack.WaitAck(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	h.waitFor("outcome", func() bool { return h.outcomeShown(a, "Rejected") })
	task := h.task(a)
	if task.Error != "Rejected" || task.Cause != "Not this week" {
		t.Errorf("failure = %q %q, want Rejected / Not this week", task.Error, task.Cause)
	}
	if !strings.Contains(string(h.message(a).Blocks), "Not this week") {
		t.Error("the message does not show the reason")
	}
}

func TestRequestChangesWithModal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{RevisionPresets: []string{"Shorter", "More detail"}})

	h.click(approver, a, "revise")
	h.waitFor("modal", func() bool { return len(h.slack.Views(approver)) == 1 })
	v := h.slack.Views(approver)[0]

	submit := func(values map[string]map[string]any) json.RawMessage {
		t.Helper()
		env, err := h.slack.Submit(approver, v.ID, values)
		if err != nil {
			t.Fatal(err)
		}
		ack, err := h.slack.WaitAck(context.Background(), env)
		if err != nil {
			t.Fatal(err)
		}
		return ack.Payload
	}
	for name, values := range map[string]map[string]map[string]any{
		"empty":    {},
		"too long": {"feedback": {"feedback": map[string]any{"type": "plain_text_input", "value": strings.Repeat("x", 3001)}}},
	} {
		var got struct {
			ResponseAction string            `json:"response_action"`
			Errors         map[string]string `json:"errors"`
		}
		if err := json.Unmarshal(submit(values), &got); err != nil {
			t.Fatal(err)
		}
		if got.ResponseAction != "errors" || got.Errors["feedback"] == "" {
			t.Errorf("%s: ack = %+v, want errors on feedback", name, got)
		}
	}
	if task := h.task(a); !task.Open || h.get(a).Status != workflow.StatusPending {
		t.Fatal("an invalid submission changed the approval")
	}

	submit(map[string]map[string]any{
		"preset":   {"preset": map[string]any{"type": "radio_buttons", "selected_option": map[string]any{"value": "Shorter"}}},
		"feedback": {"feedback": map[string]any{"type": "plain_text_input", "value": "Drop the intro."}},
	})
	h.waitFor("outcome", func() bool { return h.outcomeShown(a, "Changes requested") })
	out := output(t, h.task(a))
	if out["action"] != "revise" || out["preset"] != "Shorter" || out["feedback"] != "Shorter\nDrop the intro." {
		t.Errorf("output = %v", out)
	}
}

func TestSkip(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{AllowSkip: true})
	h.click(approver2, a, "skip")
	h.waitFor("outcome", func() bool { return h.outcomeShown(a, "Skipped") })
	if out := output(t, h.task(a)); out["action"] != "skip" {
		t.Errorf("output = %v", out)
	}
}

func TestGroupMemberApproves(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{Approvers: []string{group}})
	h.click(member, a, "approve")
	h.waitFor("outcome", func() bool { return h.outcomeShown(a, "Approved") })
	if got := h.slack.Calls("usergroups.users.list"); got != 1 {
		t.Errorf("usergroups.users.list calls = %d, want 1", got)
	}
}

func TestNotAllowedToDecide(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{RevisionPresets: []string{"Shorter"}})

	tests := []struct {
		user, action, want string
	}{
		{outsider, "approve", "You are not one of the approvers"},
		{requester, "approve", "You requested this approval"},
		{outsider, "reject", "You are not one of the approvers"},
		{requester, "revise", "You requested this approval"},
	}
	for i, tt := range tests {
		h.click(tt.user, a, tt.action)
		h.waitFor("ephemeral", func() bool { return len(h.ephemeralsTo(outsider))+len(h.ephemeralsTo(requester)) == i+1 })
		got := h.ephemeralsTo(tt.user)
		last := got[len(got)-1]
		if !strings.Contains(last, tt.want) || !strings.Contains(last, "Who may decide: <@"+approver+">") {
			t.Errorf("%s clicking %s was told %q", tt.user, tt.action, last)
		}
	}
	if !h.task(a).Open || h.message(a).Updates != 0 || len(h.slack.Views(outsider))+len(h.slack.Views(requester)) != 0 {
		t.Error("a refused click changed something")
	}
}

func TestConcurrentClicksResumeOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{})

	var wg sync.WaitGroup
	var mu sync.Mutex
	sent := 0
	for range 20 {
		wg.Go(func() {
			if _, err := h.slack.Click(approver, a.Channel, a.MessageTS, "approve", a.ID); err == nil {
				mu.Lock()
				sent++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	h.waitFor("outcome and answers", func() bool {
		return h.outcomeShown(a, "Approved") && len(h.ephemeralsTo(approver)) == sent-1 &&
			len(h.slack.Replies(a.Channel, a.MessageTS)) > 0
	})
	if got := h.task(a).Results; got != 1 {
		t.Errorf("resumed %d times, want 1", got)
	}
	if got := len(h.slack.Replies(a.Channel, a.MessageTS)); got != 1 {
		t.Errorf("%d thread replies, want 1", got)
	}
}

func TestTwoBotsShareTheWork(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	h.startBot(testConfig(), nil)
	var list []workflow.Approval
	for range 10 {
		list = append(list, h.request(workflow.Request{}))
	}
	var wg sync.WaitGroup
	for _, a := range list {
		for _, u := range []string{approver, approver2} {
			wg.Go(func() { _, _ = h.slack.Click(u, a.Channel, a.MessageTS, "approve", a.ID) })
		}
	}
	wg.Wait()
	h.waitFor("every message updated", func() bool {
		for _, a := range list {
			if !h.outcomeShown(a, "Approved") {
				return false
			}
		}
		return true
	})
	for _, a := range list {
		if got := h.task(a).Results; got != 1 {
			t.Errorf("%s resumed %d times, want 1", a.ID, got)
		}
	}
}

func TestExpired(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)

	t.Run("click after the task timed out", func(t *testing.T) {
		a := h.request(workflow.Request{})
		h.resumer.TimeOut(a.TaskToken.Reveal())
		h.click(approver, a, "approve")
		h.waitFor("expired outcome", func() bool { return h.outcomeShown(a, "Expired") })
		h.waitFor("ephemeral", func() bool { return len(h.ephemeralsTo(approver)) > 0 })
		if got := h.ephemeralsTo(approver)[0]; !strings.Contains(got, "expired") {
			t.Errorf("ephemeral = %q", got)
		}
	})
	t.Run("deadline passed", func(t *testing.T) {
		a := h.request(workflow.Request{TimeoutSeconds: 60})
		h.clock.Add(int64(2*time.Minute + workflow.DefaultExpiryGrace))
		h.waitFor("swept to expired", func() bool { return h.outcomeShown(a, "Expired") })
		if task := h.task(a); task.Error != workflow.ErrorApprovalExpired {
			t.Errorf("task error = %q, want %s", task.Error, workflow.ErrorApprovalExpired)
		}
	})
}

func TestPendingCommand(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	mine1 := h.request(workflow.Request{Approvers: []string{approver}, Title: "First for me"})
	h.request(workflow.Request{Approvers: []string{approver2}, Title: "Not mine"})
	mine2 := h.request(workflow.Request{Approvers: []string{group, approver}, Title: "Second for me"})
	h.request(workflow.Request{Approvers: []string{approver}, RequestedBy: approver, Title: "My own request"})
	done := h.request(workflow.Request{Approvers: []string{approver}, Title: "Already approved"})
	h.click(approver, done, "approve")
	h.waitFor("decided", func() bool { return h.outcomeShown(done, "Approved") })

	env, err := h.slack.Slash(approver, channel, "/approvals", "pending")
	if err != nil {
		t.Fatal(err)
	}
	if ack, err := h.slack.WaitAck(context.Background(), env); err != nil || (len(ack.Payload) != 0 && string(ack.Payload) != "null") {
		t.Fatalf("ack = %s, %v; want an empty ack", ack.Payload, err)
	}
	h.waitFor("answer", func() bool { return len(h.slack.ResponsePosts()) == 1 })
	var body struct {
		ResponseType string `json:"response_type"`
		Text         string `json:"text"`
		Blocks       []struct {
			Text struct{ Text string } `json:"text"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(h.slack.ResponsePosts()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, b := range body.Blocks[1:] {
		titles = append(titles, b.Text.Text)
	}
	if body.ResponseType != "ephemeral" || len(titles) != 2 ||
		!strings.Contains(titles[0], mine1.Title) || !strings.Contains(titles[1], mine2.Title) {
		t.Fatalf("answer = %+v", body)
	}
	if want := "<" + h.slack.URL() + "archives/" + channel + "/p" + strings.Replace(mine1.MessageTS, ".", "", 1) + "|"; !strings.Contains(titles[0], want) {
		t.Errorf("no link %s in %q", want, titles[0])
	}

	h.slack.Slash(outsider, channel, "/approvals", "")
	h.slack.Slash(outsider, channel, "/approvals", "help")
	h.waitFor("answers", func() bool { return len(h.slack.ResponsePosts()) == 3 })
	posts := h.slack.ResponsePosts()
	if !strings.Contains(string(posts[1].Body), "Nothing waiting for you.") && !strings.Contains(string(posts[2].Body), "Nothing waiting for you.") {
		t.Errorf("no empty answer in %s / %s", posts[1].Body, posts[2].Body)
	}
	if !strings.Contains(string(posts[1].Body)+string(posts[2].Body), "Usage") {
		t.Error("no usage answer for help")
	}
}

// While Slack cannot say who is in one user group, /approvals pending
// lists everything else and says some requests could not be checked.
func TestPendingCommandSaysWhatItCouldNotCheck(t *testing.T) {
	t.Parallel()
	const other = "S0OTHER"
	h := newHarness(t, func(o *fakeslack.Options) { o.Groups[other] = []string{member} })
	h.startBot(testConfig(), nil)
	direct := h.request(workflow.Request{Approvers: []string{member}, Title: "Mine directly"})
	viaGroup := h.request(workflow.Request{Approvers: []string{group}, Title: "Mine through the group"})
	if _, err := h.dir.GroupMembers(context.Background(), group); err != nil { // cached: Slack answered it
		t.Fatal(err)
	}
	h.slack.FailMethod("usergroups.users.list", -1, http.StatusTooManyRequests)
	h.request(workflow.Request{Approvers: []string{other}, Title: "Mine through the other group"})

	if _, err := h.slack.Slash(member, channel, "/approvals", "pending"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("answer", func() bool { return len(h.slack.ResponsePosts()) == 1 })
	body := string(h.slack.ResponsePosts()[0].Body)
	for _, want := range []string{direct.Title, viaGroup.Title, "could not be checked"} {
		if !strings.Contains(body, want) {
			t.Errorf("answer without %q: %s", want, body)
		}
	}
	if strings.Contains(body, "through the other group") {
		t.Errorf("answer lists a request of the group nobody could check: %s", body)
	}
}

func TestBadEnvelopesAreIgnored(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	raw := []string{
		`this is not json`,
		`{"envelope_id":"bad-1","type":"interactive","payload":"not an object"}`,
		`{"envelope_id":"bad-2","type":"something_new","payload":{}}`,
		`{"envelope_id":"bad-3","type":"interactive","payload":{"type":"block_actions","user":{"id":"U0APPROVER"},"actions":[{"action_id":"explode","value":"ap_x"}]}}`,
		`{"envelope_id":"bad-4","type":"interactive","payload":{"type":"message_action","user":{"id":"U0APPROVER"}}}`,
		`{"envelope_id":"bad-5","type":"interactive","payload":{"type":"block_actions","user":{"id":"U0APPROVER"},"actions":[]}}`,
		`{"envelope_id":"bad-6","type":"interactive","payload":{"type":"view_submission","user":{"id":"U0APPROVER"},"view":{"callback_id":"other"}}}`,
		`{"envelope_id":"bad-7","type":"slash_commands","payload":[1,2]}`,
	}
	for _, r := range raw {
		if err := h.slack.SendRaw([]byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := h.slack.SendEvent("app_mention", map[string]any{"text": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, id := range []string{"bad-1", "bad-2", "bad-3", "bad-4", "bad-5", "bad-6", "bad-7", ev} {
		if _, err := h.slack.WaitAck(ctx, id); err != nil {
			t.Errorf("%s not acked: %v", id, err)
		}
	}
	a := h.request(workflow.Request{})
	h.click(approver, a, "approve")
	h.waitFor("outcome", func() bool { return h.outcomeShown(a, "Approved") })
}

func TestReconnectsAfterDisconnect(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	list := []workflow.Approval{h.request(workflow.Request{}), h.request(workflow.Request{}), h.request(workflow.Request{})}
	h.click(approver, list[0], "approve")
	h.slack.Disconnect(fakeslack.ReasonRefreshRequested)
	h.waitFor("reconnected", func() bool { return h.slack.Connections() == 1 })
	h.click(approver, list[1], "approve")
	h.click(approver, list[2], "approve")
	h.waitFor("later clicks handled", func() bool {
		return h.outcomeShown(list[1], "Approved") && h.outcomeShown(list[2], "Approved")
	})
	if h.slack.Opens() < 2 {
		t.Errorf("opens = %d, want a reconnect", h.slack.Opens())
	}
}

func TestSlackOutageDuringUpdate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startBot(testConfig(), nil)
	a := h.request(workflow.Request{})
	h.slack.FailMethod("chat.update", -1, 503)
	h.click(approver, a, "approve")
	h.waitFor("resumed and updates tried", func() bool {
		return !h.task(a).Open && h.slack.Calls("chat.update") >= 3
	})
	if h.message(a).Updates != 0 || h.get(a).MessageSynced {
		t.Fatal("message updated during the outage")
	}
	h.slack.Heal("chat.update")
	h.waitFor("message fixed after the outage", func() bool { return h.outcomeShown(a, "Approved") && h.get(a).MessageSynced })
}

func TestRateLimitedUpdatesShareOnePause(t *testing.T) {
	t.Parallel()
	const n = 20
	h := newHarness(t, func(o *fakeslack.Options) {
		o.RateLimits = map[string]fakeslack.RateLimit{"chat.update": {Burst: 8, Per: time.Second}}
	})
	cfg := testConfig()
	cfg.UpdateRate = pacing.Rate{Events: 20, Per: time.Second, Burst: 10}
	cfg.UpdateAttempts = 1 // only 429s may be retried by the updater itself
	h.startBot(cfg, nil)
	var list []workflow.Approval
	for range n {
		list = append(list, h.request(workflow.Request{}))
	}
	for _, a := range list {
		h.click(approver, a, "approve")
	}
	h.waitFor("every message updated and replied to", func() bool {
		for _, a := range list {
			if !h.outcomeShown(a, "Approved") || len(h.slack.Replies(a.Channel, a.MessageTS)) == 0 {
				return false
			}
		}
		return true
	})
	// Per-call retries made about 4 calls per message in the measured trial;
	// a shared pause costs a couple of 429s per rate window.
	if calls := h.slack.Calls("chat.update"); calls > n+8 {
		t.Errorf("chat.update called %d times for %d messages", calls, n)
	}
	for _, a := range list {
		if got := len(h.slack.Replies(a.Channel, a.MessageTS)); got != 1 {
			t.Errorf("%s has %d thread replies, want 1", a.ID, got)
		}
	}
}

func TestRefusedConnectionsDoNotStorm(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.slack.RefuseConnections(fakeslack.ReasonTooManyWebsockets)
	h.startBotWith(testConfig(), h.svc, h.api(NewHTTPClient(5*time.Second)))
	h.waitFor("first refused open", func() bool { return h.slack.Opens() >= 1 })
	window := time.NewTimer(2500 * time.Millisecond)
	<-window.C // an observation window, not synchronisation: count opens over it
	if got := h.slack.Opens(); got > 4 {
		t.Fatalf("%d connection opens in 2.5 s", got)
	}
	h.slack.RefuseConnections("")
	h.waitFor("connected", func() bool { return h.slack.Connections() == 1 })
	a := h.request(workflow.Request{})
	h.click(approver, a, "approve")
	h.waitFor("outcome", func() bool { return h.outcomeShown(a, "Approved") })
}

func TestInvalidAuthIsFatal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	bad := slackClientWithAppToken(h, "xapp-1-wrong-app-token")
	rb := h.startBotWith(testConfig(), h.svc, bad)
	select {
	case err := <-rb.done:
		close(rb.done)
		if err == nil || !strings.Contains(err.Error(), "invalid_auth") {
			t.Fatalf("Run = %v, want an invalid_auth error", err)
		}
		if strings.Contains(err.Error(), "wrong-app-token") {
			t.Error("the error shows the token")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run kept going with a refused token")
	}
	if n := h.logs.FilterField(zap.String("alert", alertSlackAuth)).Len(); n == 0 {
		t.Errorf("no log line carries alert=%s for the alarm", alertSlackAuth)
	}
}

// gatedApprovals holds every resume (after the decision is recorded and
// acked) until released.
type gatedApprovals struct {
	Approvals
	entered chan struct{}
	release chan struct{}
}

func (g gatedApprovals) Resume(ctx context.Context, c workflow.Claimed) (workflow.Approval, error) {
	g.entered <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
		return c.Approval, ctx.Err()
	}
	return g.Approvals.Resume(ctx, c)
}

// TestResumesDoNotHoldUpOtherWork: with one worker, decisions whose
// resumes wait on Step Functions hold up neither more resumes nor a
// command: resumes have a lane of their own, claimWorkers wide (on the
// worker pool, a burst's resumes waited on the outcome writes before them).
func TestResumesDoNotHoldUpOtherWork(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	gate := gatedApprovals{Approvals: h.svc, entered: make(chan struct{}, 10), release: make(chan struct{})}
	cfg := testConfig()
	cfg.Workers = 1
	cfg.CallTimeout = time.Minute // the resumes wait for the gate, not for their timeout
	rb := h.startBot(cfg, gate)
	first, second := h.request(workflow.Request{}), h.request(workflow.Request{})
	for _, a := range []workflow.Approval{first, second} {
		h.click(approver, a, "approve")
		select {
		case <-gate.entered:
		case <-time.After(15 * time.Second):
			t.Fatalf("%s: its resume did not start beside the one in flight", a.Title)
		}
	}
	h.acked(h.slack.Slash(approver, channel, "/approvals", "pending"))
	h.waitFor("the command answered while both resumes wait", func() bool { return len(h.slack.ResponsePosts()) == 1 })
	close(gate.release)
	h.waitFor("both resumed", func() bool { return !h.task(first).Open && !h.task(second).Open })
	if err := rb.stop(t); err != nil {
		t.Fatal(err)
	}
}

func TestShutdownFinishesInFlightWork(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	gate := gatedApprovals{Approvals: h.svc, entered: make(chan struct{}, 1), release: make(chan struct{})}
	rb := h.startBot(testConfig(), gate)
	a := h.request(workflow.Request{})
	h.click(approver, a, "approve")
	<-gate.entered

	stopped := make(chan error, 1)
	go func() { stopped <- rb.stop(t) }()
	select {
	case <-stopped:
		t.Fatal("Run returned with a decision in flight")
	case <-h.slack.Changed(): // the socket closes: no more envelopes taken
	}
	h.waitFor("socket closed", func() bool { return h.slack.Connections() == 0 })
	close(gate.release)
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after the work finished")
	}
	if h.task(a).Open {
		t.Error("the in-flight decision did not resume the execution")
	}
	if !h.outcomeShown(a, "Approved") {
		t.Error("the queued message update was not made before stopping")
	}
}

func TestShutdownTimeoutBoundsStuckWork(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	gate := gatedApprovals{Approvals: h.svc, entered: make(chan struct{}, 1), release: make(chan struct{})}
	cfg := testConfig()
	cfg.ShutdownTimeout = 300 * time.Millisecond
	rb := h.startBot(cfg, gate)
	a := h.request(workflow.Request{})
	h.click(approver, a, "approve")
	<-gate.entered
	start := time.Now()
	if err := rb.stop(t); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("shutdown took %s with a 300ms timeout", took)
	}
}

func TestAcksDoNotWaitForDecisions(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	gate := gatedApprovals{Approvals: h.svc, entered: make(chan struct{}, 100), release: make(chan struct{})}
	cfg := testConfig()
	cfg.Workers = 1
	h.startBot(cfg, gate)
	defer close(gate.release)
	var envs []string
	for range 5 {
		a := h.request(workflow.Request{})
		envs = append(envs, h.click(approver, a, "approve"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, env := range envs {
		if _, err := h.slack.WaitAck(ctx, env); err != nil {
			t.Fatalf("%s not acked while decisions were stuck: %v", env, err)
		}
	}
	if diff := cmp.Diff([]string(nil), h.slack.Failures()); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}
