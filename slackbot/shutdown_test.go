package slackbot

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/pacing"
	"github.com/sfnapprovals/approvals/workflow"
)

// stuckWork is gatedApprovals whose PendingFor (a command's work, on the
// pool) also waits for release, so that a command can hold the pool's
// worker while decisions wait in their own lanes.
type stuckWork struct {
	gatedApprovals
	listing chan struct{}
}

func newStuckWork(h *harness) stuckWork {
	return stuckWork{
		gatedApprovals: gatedApprovals{Approvals: h.svc, entered: make(chan struct{}, 10), release: make(chan struct{})},
		listing:        make(chan struct{}, 10),
	}
}

func (g stuckWork) PendingFor(ctx context.Context, user string, limit int) ([]workflow.Approval, error) {
	g.listing <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Approvals.PendingFor(ctx, user, limit)
}

// queueBehindStuckDecision starts a one-worker bot whose resumes wait for
// gate, opens a reject modal on submitted, and leaves one decision in
// flight (on inflight): the decisions made next wait for the gate too.
func queueBehindStuckDecision(t *testing.T, h *harness, cfg Config, gate stuckWork, inflight, submitted workflow.Approval) *runningBot {
	t.Helper()
	cfg.Workers = 1
	rb := h.startBot(cfg, gate)
	h.click(approver, submitted, "reject")
	h.waitFor("modal", func() bool { return len(h.slack.Views(approver)) == 1 })
	h.click(approver, inflight, "approve")
	<-gate.entered
	return rb
}

// poolHolder's command holds the pool (see holdThePool).
const poolHolder = "U0HOLDER"

// holdThePool sends a command whose listing waits for the gate, holding
// the pool's one worker: what the pool is given next waits in its queue.
func (h *harness) holdThePool(gate stuckWork) {
	h.t.Helper()
	h.acked(h.slack.Slash(poolHolder, channel, "/approvals", "pending"))
	select {
	case <-gate.listing:
	case <-time.After(15 * time.Second):
		h.t.Fatal("the command holding the pool never started")
	}
}

func (h *harness) acked(env string, err error) {
	h.t.Helper()
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.slack.WaitAck(context.Background(), env); err != nil {
		h.t.Fatal(err)
	}
}

// TestShutdownAnswersWorkItCouldNotDo: decisions whose resumes are cut
// short or still queued, a click and a command still queued behind a
// command in flight at the drain deadline are not done, and each person is
// told privately. A decision is acked only once recorded, so the decisions
// acked stand: their people are told so, and a surviving replica's Recover
// resumes them after the claim's lease. The modal never opened decides
// nothing.
func TestShutdownAnswersWorkItCouldNotDo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	gate := newStuckWork(h)
	cfg := testConfig()
	cfg.ShutdownTimeout = 4 * time.Second
	cfg.CallTimeout = time.Minute // the decision in flight is stuck until the drain deadline
	req := workflow.Request{RevisionPresets: []string{"Shorter"}}
	inflight, submitted, clicked, opened := h.request(req), h.request(req), h.request(req), h.request(req)
	rb := queueBehindStuckDecision(t, h, cfg, gate, inflight, submitted)

	h.acked(h.slack.Submit(approver, h.slack.Views(approver)[0].ID, map[string]map[string]any{
		"reason": {"reason": map[string]any{"type": "plain_text_input", "value": "not now"}},
	}))
	h.acked(h.slack.Click(approver, clicked.Channel, clicked.MessageTS, "approve", clicked.ID))
	h.holdThePool(gate)
	h.acked(h.slack.Click(approver, opened.Channel, opened.MessageTS, "revise", opened.ID))
	h.acked(h.slack.Slash(approver2, channel, "/approvals", "pending"))
	if err := rb.stop(t); err != nil {
		t.Fatal(err)
	}

	got := h.ephemeralsTo(approver)
	slices.Sort(got)
	recorded := blocks.T("", textRecordedNotResumed)
	want := []string{recorded, recorded, recorded, blocks.T("", textOpenNotDone)}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("approver was told:\n%q\nwant:\n%q", got, want)
	}
	for _, m := range h.slack.Ephemerals(approver) {
		if m.Channel != channel {
			t.Errorf("%q shown in %s, not beside the request", m.Text, m.Channel)
		}
	}
	var answers []string
	for _, p := range h.slack.ResponsePosts() {
		var m struct{ Text string }
		if err := json.Unmarshal(p.Body, &m); err != nil {
			t.Fatal(err)
		}
		answers = append(answers, m.Text)
	}
	slices.Sort(answers)
	typed := "/approvals pending"
	wantAnswers := []string{blocks.T("", blocks.KDownCommand, typed), blocks.T("", blocks.KDownCommandCut, typed)}
	slices.Sort(wantAnswers)
	if !slices.Equal(answers, wantAnswers) {
		t.Errorf("command answers:\n%q\nwant the queued one's and the one cut short's:\n%q", answers, wantAnswers)
	}
	if !h.task(opened).Open || h.get(opened).Status != workflow.StatusPending || h.message(opened).Updates != 0 {
		t.Errorf("%s changed though its work was not done", opened.Title)
	}
	if n := len(h.slack.Views(approver)); n != 1 {
		t.Errorf("%d modals opened, want only the first", n)
	}
	for _, a := range []workflow.Approval{inflight, submitted, clicked} {
		if !h.task(a).Open || h.get(a).Status != workflow.StatusClaimed {
			t.Errorf("%s: task open %v, status %s; want the acked decision recorded (claimed), not resumed", a.Title, h.task(a).Open, h.get(a).Status)
		}
	}
	// Another replica's sweep, once the claims' lease has passed.
	h.clock.Add(int64(workflow.DefaultClaimLease + time.Second))
	if _, err := h.svc.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	if h.task(inflight).Open || h.task(clicked).Open || h.task(submitted).Error != "Rejected" {
		t.Errorf("recorded decisions not resumed by Recover: %+v %+v %+v", h.task(inflight), h.task(clicked), h.task(submitted))
	}
}

// TestShutdownFinishesQueuedWorkWithinTheBound: decisions whose resumes
// wait behind a slow one, and a command queued behind a slow command, are
// done when the drain allows it, and nobody is told to retry.
func TestShutdownFinishesQueuedWorkWithinTheBound(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	gate := newStuckWork(h)
	cfg := testConfig()
	cfg.ShutdownTimeout = 20 * time.Second
	inflight, submitted, clicked := h.request(workflow.Request{}), h.request(workflow.Request{}), h.request(workflow.Request{})
	rb := queueBehindStuckDecision(t, h, cfg, gate, inflight, submitted)

	h.acked(h.slack.Submit(approver, h.slack.Views(approver)[0].ID, map[string]map[string]any{
		"reason": {"reason": map[string]any{"type": "plain_text_input", "value": "not now"}},
	}))
	h.acked(h.slack.Click(approver, clicked.Channel, clicked.MessageTS, "approve", clicked.ID))
	h.holdThePool(gate)
	h.acked(h.slack.Slash(approver, channel, "/approvals", "pending"))
	stopped := make(chan error, 1)
	go func() { stopped <- rb.stop(t) }()
	h.waitFor("socket closed", func() bool { return h.slack.Connections() == 0 })
	close(gate.release)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}

	if h.task(inflight).Open || h.task(clicked).Open || h.task(submitted).Error != "Rejected" {
		t.Error("queued decisions were not made before stopping")
	}
	for _, a := range []workflow.Approval{inflight, submitted, clicked} {
		if h.message(a).Updates == 0 {
			t.Errorf("%s: message not updated before stopping", a.Title)
		}
	}
	for _, got := range h.ephemeralsTo(approver) {
		if strings.Contains(got, "restarting") {
			t.Errorf("approver was told %q", got)
		}
	}
	posts := h.slack.ResponsePosts()
	if len(posts) != 2 {
		t.Errorf("command answers = %v, want both lists", posts)
	}
	for _, p := range posts {
		if strings.Contains(string(p.Body), "restarting") {
			t.Errorf("command answered %s, want the list", p.Body)
		}
	}
}

// TestEnvelopesMissedAtShutdownAreAnswered: a click and a command still in
// the Socket Mode client when its socket closed were never acked; each
// person is told privately and nothing is decided.
func TestEnvelopesMissedAtShutdownAreAnswered(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a := h.request(workflow.Request{})
	b := New(testConfig(), h.svc, h.api(nil), h.log)
	b.sm = socketmode.New(b.api)
	b.sm.Events <- socketmode.Event{
		Type:    socketmode.EventTypeInteractive,
		Request: &socketmode.Request{EnvelopeID: "e-click"},
		Data: slack.InteractionCallback{
			Type:      slack.InteractionTypeBlockActions,
			User:      slack.User{ID: approver},
			Channel:   slack.Channel{GroupConversation: slack.GroupConversation{Conversation: slack.Conversation{ID: a.Channel}}},
			Container: slack.Container{ChannelID: a.Channel, MessageTs: a.MessageTS},
			ActionCallback: slack.ActionCallbacks{BlockActions: []*slack.BlockAction{
				{ActionID: blocks.ActionApprove, Value: a.ID},
			}},
		},
	}
	b.sm.Events <- socketmode.Event{
		Type:    socketmode.EventTypeSlashCommand,
		Request: &socketmode.Request{EnvelopeID: "e-command"},
		Data:    slack.SlashCommand{Command: "/approvals", Text: "pending", UserID: approver2, ChannelID: channel},
	}
	b.sm.Events <- socketmode.Event{Type: socketmode.EventTypeHello}
	socketDone := make(chan error)
	close(socketDone)

	missed := b.drain(socketDone)
	b.answerLeftovers(5*time.Second, missed)

	if got := h.ephemeralsTo(approver); !slices.Equal(got, []string{blocks.T("", textClickNotApplied)}) {
		t.Errorf("the person who clicked was told %q", got)
	}
	if got := h.ephemeralsTo(approver2); len(got) != 1 || !strings.Contains(got[0], "did not answer `/approvals pending`") {
		t.Errorf("the person who ran the command was told %q", got)
	}
	if !h.task(a).Open || h.message(a).Updates != 0 {
		t.Error("a missed click changed something")
	}
}

// TestShutdownSaysWhatSlackWorkItLeft: a message update and a thread reply
// still waiting for Slack's pacing when the shutdown bound passes are not
// done; the bot says so in one warning, with the counts, and the message
// it did not update is not recorded as updated, so a sweeper updates it.
func TestShutdownSaysWhatSlackWorkItLeft(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cfg := testConfig()
	cfg.ShutdownTimeout = time.Second
	cfg.UpdateRate = pacing.Rate{Events: 1, Per: time.Hour, Burst: 2}
	cfg.ReplyRate = pacing.Rate{Events: 1, Per: time.Hour, Burst: 1}
	rb := h.startBot(cfg, nil)
	var as []workflow.Approval
	for range 3 {
		a := h.request(workflow.Request{})
		as = append(as, a)
		h.click(approver, a, "approve")
	}
	count := func() (resumed, updated, replies int) {
		for _, a := range as {
			if !h.task(a).Open {
				resumed++
			}
			if h.message(a).Updates > 0 {
				updated++
			}
			replies += len(h.slack.Replies(a.Channel, a.MessageTS))
		}
		return
	}
	h.waitFor("all resumed, two messages updated, one reply", func() bool {
		r, u, p := count()
		return r == 3 && u == 2 && p == 1
	})
	if err := rb.stop(t); err != nil {
		t.Fatal(err)
	}

	if r, u, p := count(); r != 3 || u != 2 || p != 1 {
		t.Errorf("after stopping: %d resumed, %d updated, %d replies; want 3, 2, 1", r, u, p)
	}
	said := h.logs.FilterMessageSnippet("stopped before this Slack work was done").AllUntimed()
	if len(said) != 1 {
		t.Fatalf("%d warnings about work left, want 1", len(said))
	}
	fields := said[0].ContextMap()
	for name, want := range map[string]int64{"message_updates": 1, "thread_replies": 1, "progress_updates": 0, "thread_notes": 0} {
		if fields[name] != want {
			t.Errorf("%s = %v, want %d (all: %v)", name, fields[name], want, fields)
		}
	}
	synced := 0
	for _, a := range as {
		if h.get(a).MessageSynced {
			synced++
		}
	}
	if synced != 2 {
		t.Errorf("%d messages recorded as updated, want the 2 updated", synced)
	}
}
