package devstack_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/internal/dynamolocal"
	"github.com/sfnapprovals/approvals/internal/syncbuf"
	"github.com/sfnapprovals/approvals/slackbot"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/slackbot/pacing"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

// People and places of the end-to-end tests.
const (
	alice   = "U0ALICE"   // listed approver
	bob     = "U0BOB"     // requester
	carol   = "U0CAROL"   // member of the editors group
	mallory = "U0MALLORY" // nobody
	editors = "S0EDITORS"
	channel = "C0PUBLISH"

	botToken = "xoxb-e2e-secret-bot-token"
	appToken = "xapp-e2e-secret-app-token"
)

var ddbEndpoint string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	ddb, err := dynamolocal.Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "devstack tests:", err)
		return 1
	}
	defer ddb.Close()
	ddbEndpoint = ddb.Endpoint()
	return m.Run()
}

// env is one running stack plus what the test handed out.
type env struct {
	t      *testing.T
	stack  *devstack.Stack
	logs   *syncbuf.Buffer
	offset atomic.Int64 // added to the services' clock
	mu     sync.Mutex
	tokens []string
	seq    atomic.Int64
}

// quickBotConfig sweeps and retries often, so tests wait little. Its
// timeouts only stop a hung call or socket: a busy machine (CI runs test
// binaries side by side) makes calls that take milliseconds take seconds.
func quickBotConfig() slackbot.Config {
	return slackbot.Config{
		Workers:         8,
		ShutdownTimeout: 30 * time.Second,
		CallTimeout:     30 * time.Second,
		SweepInterval:   200 * time.Millisecond,
		SweepGrace:      -1,
		UpdateRate:      pacing.Rate{Events: 1000, Per: time.Second, Burst: 100},
		ReplyRate:       pacing.Rate{Events: 1000, Per: time.Second, Burst: 100},
		RetryBase:       20 * time.Millisecond,
		RetryMax:        100 * time.Millisecond,
		UpdateAttempts:  3,
	}
}

func newEnv(t *testing.T, replicas int, edit ...func(*devstack.Options)) *env {
	t.Helper()
	e := &env{t: t, logs: &syncbuf.Buffer{}}
	opts := devstack.Options{
		DynamoDBEndpoint: ddbEndpoint,
		Replicas:         replicas,
		Logs:             e.logs,
		Slack: fakeslack.Options{
			BotToken: botToken,
			AppToken: appToken,
			Groups:   map[string][]string{editors: {carol}},
			// Slack's 3 s for an ack or a modal is the bot's contract,
			// tested in slackbot; here a late ack or modal on a busy
			// machine would only fail a test about something else.
			AckTimeout: time.Minute,
			TriggerTTL: time.Minute,
		},
		Bot: quickBotConfig(),
		Now: func() time.Time { return time.Now().Add(time.Duration(e.offset.Load())) },
	}
	for _, f := range edit {
		f(&opts)
	}
	stack, err := devstack.Start(testContext(t), opts)
	if err != nil {
		t.Fatalf("start stack: %v", err)
	}
	e.stack = stack
	t.Cleanup(e.assertNoSecrets)
	t.Cleanup(stack.Close)
	t.Cleanup(e.logsOnFailure)
	return e
}

// ctx bounds a step of the test.
func (e *env) ctx() context.Context { return testContext(e.t) }

// testContext ends shortly before the test binary's deadline (go test
// -timeout), so a wait that never ends fails with its own message. No
// step guesses how long it may take: on a busy machine one that takes
// milliseconds when idle can take seconds.
func testContext(t *testing.T) context.Context {
	t.Helper()
	deadline, ok := t.Deadline()
	if !ok {
		return t.Context()
	}
	ctx, cancel := context.WithDeadline(t.Context(), deadline.Add(-time.Until(deadline)/20))
	t.Cleanup(cancel)
	return ctx
}

// payload is a typical drafting-agent request; edit changes it.
func (e *env) payload(edit func(map[string]any)) map[string]any {
	p := map[string]any{
		"channel":         channel,
		"approvers":       []string{alice, editors},
		"requestedBy":     bob,
		"title":           fmt.Sprintf("Publish post %d", e.seq.Add(1)),
		"summary":         "Two drafts for *Monday*.",
		"fields":          map[string]string{"Theme": "Step Functions"},
		"drafts":          []string{"first draft", "second draft"},
		"revisionPresets": []string{"For non-engineers", "Shorter"},
		"allowSkip":       true,
		"timeoutSeconds":  3600,
	}
	if edit != nil {
		edit(p)
	}
	return p
}

// request pauses a new execution on an approval and returns it.
func (e *env) request(edit func(map[string]any)) devstack.Pending {
	e.t.Helper()
	p, err := e.stack.Request(e.ctx(), fmt.Sprintf("run-%d-%d", time.Now().UnixNano(), e.seq.Load()), e.payload(edit))
	e.mu.Lock()
	e.tokens = append(e.tokens, p.Token)
	e.mu.Unlock()
	if err != nil {
		e.t.Fatalf("request: %v", err)
	}
	return p
}

// message returns the request message as Slack holds it now.
func (e *env) message(p devstack.Pending) fakeslack.Message {
	e.t.Helper()
	m, ok := e.stack.Slack.Message(p.Response.Channel, p.Response.TS)
	if !ok {
		e.t.Fatalf("no message %s in %s", p.Response.TS, p.Response.Channel)
	}
	return m
}

// option finds the menu option whose label is text.
func (e *env) option(p devstack.Pending, text string) (fakeslack.MenuOption, bool) {
	for _, o := range fakeslack.MenuOptions(e.message(p).Blocks) {
		if o.Text == text {
			return o, true
		}
	}
	return fakeslack.MenuOption{}, false
}

// button finds the action ID of the button whose label is text.
func (e *env) button(p devstack.Pending, text string) string {
	e.t.Helper()
	var labels []string
	for _, b := range fakeslack.ButtonActions(e.message(p).Blocks) {
		if b.Text == text {
			return b.ActionID
		}
		labels = append(labels, b.Text)
	}
	e.t.Fatalf("no button %q; the message has %q", text, labels)
	return ""
}

// click presses the button labelled label as user, or picks the option
// labelled so in one of the message's menus (overflow or select), and
// waits for the bot's ack.
func (e *env) click(user string, p devstack.Pending, label string) fakeslack.Ack {
	e.t.Helper()
	var id string
	var err error
	if o, ok := e.option(p, label); ok {
		id, err = e.stack.Slack.Choose(user, p.Response.Channel, p.Response.TS, o.ActionID, o.Value)
	} else {
		id, err = e.stack.Slack.Click(user, p.Response.Channel, p.Response.TS, e.button(p, label), p.Response.ApprovalID)
	}
	if err != nil {
		e.t.Fatalf("click %q: %v", label, err)
	}
	ack, err := e.stack.Slack.WaitAck(e.ctx(), id)
	if err != nil {
		e.t.Fatalf("ack of click %q: %v", label, err)
	}
	return ack
}

// ackedOrFailed waits until the envelope is acked (true) or Slack gives
// up on it (false), or the test context ends (false).
func (e *env) ackedOrFailed(envelopeID string) bool {
	e.t.Helper()
	acked := false
	_ = e.stack.Slack.WaitFor(e.ctx(), func() bool {
		for _, a := range e.stack.Slack.Acks() {
			if a.EnvelopeID == envelopeID {
				acked = true
				return true
			}
		}
		return slices.Contains(e.stack.Slack.Failures(), envelopeID)
	})
	return acked
}

// resumed waits for the execution to receive its result.
func (e *env) resumed(p devstack.Pending) stepfunctionstest.Outcome {
	e.t.Helper()
	o, err := e.stack.WaitResumed(e.ctx(), p.Token)
	if err != nil {
		e.t.Fatalf("execution not resumed: %v", err)
	}
	return o
}

// waitFor waits until cond holds, re-checking on every fake Slack change.
func (e *env) waitFor(what string, cond func() bool) {
	e.t.Helper()
	if err := e.stack.Slack.WaitFor(e.ctx(), cond); err != nil {
		e.t.Fatalf("waiting for %s: %v", what, err)
	}
}

// settled waits until the message has no buttons left.
func (e *env) settled(p devstack.Pending) fakeslack.Message {
	e.t.Helper()
	e.waitFor("the message to lose its buttons", func() bool {
		m, _ := e.stack.Slack.Message(p.Response.Channel, p.Response.TS)
		return m.Updates > 0 && len(fakeslack.ButtonActions(m.Blocks)) == 0
	})
	return e.message(p)
}

// ephemeralTo waits for a private message to user containing text.
func (e *env) ephemeralTo(user, text string) {
	e.t.Helper()
	e.waitFor(fmt.Sprintf("an ephemeral to %s saying %q", user, text), func() bool {
		for _, m := range e.stack.Slack.Ephemerals(user) {
			if strings.Contains(m.Text+string(m.Blocks), text) {
				return true
			}
		}
		return false
	})
}

// blocksText is a message's blocks as JSON without HTML escaping, so
// mentions read as Slack stores them (<@U…>).
func blocksText(m fakeslack.Message) string {
	var v any
	if err := json.Unmarshal(m.Blocks, &v); err != nil {
		return string(m.Blocks)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return buf.String()
}

// eventually polls cond until it holds or the test context ends; for state
// outside the fake Slack, which has no change notification.
func (e *env) eventually(what string, cond func() bool) {
	e.t.Helper()
	ctx := e.ctx()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			e.t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-tick.C:
		}
	}
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("output %q is not JSON: %v", s, err)
	}
	return m
}

// logsOnFailure shows the components' logs of a failed test, so a failure
// seen once under load can be diagnosed.
func (e *env) logsOnFailure() {
	if e.t.Failed() {
		e.t.Logf("logs:\n%s", e.logs.String())
	}
}

// assertNoSecrets checks that no task token and no Slack token reached a
// log line or anything Slack holds.
func (e *env) assertNoSecrets() {
	e.mu.Lock()
	secrets := append([]string{botToken, appToken}, e.tokens...)
	e.mu.Unlock()
	var seen strings.Builder
	seen.WriteString(e.logs.String())
	for _, ch := range e.stack.Slack.Channels() {
		for _, m := range e.stack.Slack.Messages(ch) {
			fmt.Fprintf(&seen, "%s %s\n", m.Text, m.Blocks)
		}
	}
	for _, u := range []string{alice, bob, carol, mallory} {
		for _, m := range e.stack.Slack.Ephemerals(u) {
			fmt.Fprintf(&seen, "%s %s\n", m.Text, m.Blocks)
		}
		for _, v := range e.stack.Slack.Views(u) {
			fmt.Fprintf(&seen, "%s %s\n", v.PrivateMetadata, v.View)
		}
		if v, ok := e.stack.Slack.Home(u); ok {
			fmt.Fprintf(&seen, "%s\n", v.View)
		}
	}
	for _, a := range e.stack.Slack.Acks() {
		fmt.Fprintf(&seen, "%s\n", a.Payload)
	}
	for _, r := range e.stack.Slack.ResponsePosts() {
		fmt.Fprintf(&seen, "%s\n", r.Body)
	}
	all := seen.String()
	for _, s := range secrets {
		if s != "" && strings.Contains(all, s) {
			e.t.Errorf("a secret (%.12s…) reached logs or Slack", s)
		}
	}
	if !strings.Contains(all, `"approval_id"`) {
		e.t.Errorf("logs carry no approval_id: the secrets check saw no logs")
	}
}
