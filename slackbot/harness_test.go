package slackbot

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sfnapprovals/approvals/internal/syncbuf"
	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/slackbot/pacing"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

// Users and channels of the integration tests.
const (
	approver  = "U0APPROVER"
	approver2 = "U0SECOND"
	member    = "U0MEMBER" // in group
	outsider  = "U0OUTSIDER"
	requester = "U0REQUESTER"
	group     = "S0GROUP"
	channel   = "C0APPROVALS"
)

var users = []string{approver, approver2, member, outsider, requester}

// harness is one fake Slack, one in-memory store and resumer, the domain
// service on top, and any number of bots.
type harness struct {
	t       *testing.T
	slack   *fakeslack.Server
	store   *workflowtest.Store
	resumer *workflowtest.Resumer
	svc     *workflow.Service
	dir     *Directory
	clock   atomic.Int64 // offset added to time.Now by the service and directory clocks
	poster  *chat.Poster
	logs    *observer.ObservedLogs
	logJSON *syncbuf.Buffer
	log     *zap.Logger
	tokens  []string // task tokens handed out
	seq     atomic.Int64
}

type harnessOption func(*fakeslack.Options)

func newHarness(t *testing.T, opts ...harnessOption) *harness {
	t.Helper()
	fo := fakeslack.Options{
		BotToken:     "xoxb-1111-secret-bot-token",
		AppToken:     "xapp-1-secret-app-token",
		PingInterval: time.Second,
		Groups:       map[string][]string{group: {member}},
	}
	for _, o := range opts {
		o(&fo)
	}
	fs, err := fakeslack.Start(fo)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, slack: fs, store: workflowtest.NewStore(), resumer: workflowtest.NewResumer(), logJSON: &syncbuf.Buffer{}}
	observed, logs := observer.New(zap.DebugLevel)
	jsonCore := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(h.logJSON), zap.DebugLevel)
	h.logs, h.log = logs, zap.New(zapcore.NewTee(observed, jsonCore))
	h.dir = NewDirectory(h.api(nil), time.Minute)
	h.dir.now = h.now
	h.svc = workflow.NewService(h.store, h.resumer, h.dir)
	h.svc.Audit = workflowtest.NewAuditLog() // as the bot has one
	h.svc.Now = h.now
	h.svc.MessageRetry = quickMessageRetry
	h.poster = chat.NewPoster(h.api(nil))
	t.Cleanup(h.assertNoSecrets)
	t.Cleanup(fs.Close)
	return h
}

// now is the service's and the directory's clock: real time moved on by
// h.clock.
func (h *harness) now() time.Time { return time.Now().Add(time.Duration(h.clock.Load())) }

// api is a Slack client for the fake; httpClient nil means a quick one.
func (h *harness) api(httpClient *http.Client) *slack.Client {
	if httpClient == nil {
		httpClient = newHTTPClient(5*time.Second, openBackoff{Base: 20 * time.Millisecond, Max: 200 * time.Millisecond, Reset: time.Second})
	}
	return slack.New(h.slack.BotToken(), slack.OptionAppLevelToken(h.slack.AppToken()),
		slack.OptionAPIURL(h.slack.APIURL()), slack.OptionHTTPClient(httpClient))
}

// quickMessageRetry backs a failed message update off for milliseconds.
var quickMessageRetry = workflow.MessageRetry{Base: 20 * time.Millisecond, Max: 200 * time.Millisecond, Attempts: 50}

// testConfig is quick: short sweeps and retries, generous limits.
func testConfig() Config {
	return Config{
		Workers:         4,
		ShutdownTimeout: 3 * time.Second,
		CallTimeout:     3 * time.Second,
		SweepInterval:   150 * time.Millisecond,
		UpdateRate:      pacing.Rate{Events: 1000, Per: time.Second, Burst: 100},
		ReplyRate:       pacing.Rate{Events: 1000, Per: time.Second, Burst: 100},
		RetryBase:       10 * time.Millisecond,
		RetryMax:        50 * time.Millisecond,
		UpdateAttempts:  3,
		PingInterval:    5 * time.Second,
	}
}

type runningBot struct {
	bot    *Bot
	cancel context.CancelFunc
	done   chan error
}

// startBot runs a bot until the test ends, and waits for its socket.
func (h *harness) startBot(cfg Config, approvals Approvals) *runningBot {
	h.t.Helper()
	if approvals == nil {
		approvals = h.svc
	}
	want := h.slack.Connections() + 1
	rb := h.startBotWith(cfg, approvals, h.api(nil))
	h.waitFor("bot connected", func() bool { return h.slack.Connections() >= want })
	return rb
}

func (h *harness) startBotWith(cfg Config, approvals Approvals, api *slack.Client) *runningBot {
	ctx, cancel := context.WithCancel(context.Background())
	rb := &runningBot{bot: New(cfg, approvals, api, h.log), cancel: cancel, done: make(chan error, 1)}
	go func() { rb.done <- rb.bot.Run(ctx) }()
	h.t.Cleanup(func() { rb.stop(h.t) })
	return rb
}

// stop cancels the bot and waits for Run to return.
func (rb *runningBot) stop(t *testing.T) error {
	rb.cancel()
	select {
	case err, ok := <-rb.done:
		if ok {
			close(rb.done)
		}
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("bot did not stop")
		return nil
	}
}

// request stores and posts an approval as the notifier does.
func (h *harness) request(r workflow.Request) workflow.Approval {
	h.t.Helper()
	n := h.seq.Add(1)
	if r.TaskToken == "" {
		r.TaskToken = workflow.TaskToken(fmt.Sprintf("AQB8-task-token-%d-%s", n, strings.Repeat("z", 40)))
	}
	if r.Channel == "" {
		r.Channel = channel
	}
	if r.Approvers == nil {
		r.Approvers = []string{approver, approver2, group}
	}
	if r.Title == "" {
		r.Title = fmt.Sprintf("Request %d", n)
	}
	if r.RequestedBy == "" {
		r.RequestedBy = requester
	}
	if r.StateName == "" {
		r.StateName = "Approve"
	}
	r.ExecutionARN = fmt.Sprintf("arn:aws:states:eu-west-1:123456789012:execution:demo:run-%d", n)
	h.clock.Add(int64(time.Millisecond)) // distinct, increasing CreatedAt
	a, _, err := h.svc.Request(context.Background(), r)
	if err != nil {
		h.t.Fatal(err)
	}
	h.tokens = append(h.tokens, r.TaskToken.Reveal())
	h.resumer.Open(r.TaskToken.Reveal())
	ch, ts, err := h.poster.PostRequest(context.Background(), a)
	if err != nil {
		h.t.Fatal(err)
	}
	if a, err = h.svc.RecordMessage(context.Background(), a.ID, ch, ts); err != nil {
		h.t.Fatal(err)
	}
	return a
}

func (h *harness) click(user string, a workflow.Approval, actionID string) string {
	h.t.Helper()
	env, err := h.slack.Click(user, a.Channel, a.MessageTS, actionID, a.ID)
	if err != nil {
		h.t.Fatal(err)
	}
	return env
}

func (h *harness) task(a workflow.Approval) workflowtest.Task {
	t, _ := h.resumer.Task(a.TaskToken.Reveal())
	return t
}

func (h *harness) message(a workflow.Approval) fakeslack.Message {
	m, _ := h.slack.Message(a.Channel, a.MessageTS)
	return m
}

func (h *harness) get(a workflow.Approval) workflow.Approval {
	got, err := h.store.Get(context.Background(), a.ID)
	if err != nil {
		h.t.Fatal(err)
	}
	return got
}

// outcomeShown reports whether a's message was updated and has no buttons.
func (h *harness) outcomeShown(a workflow.Approval, want string) bool {
	m := h.message(a)
	return m.Updates > 0 && len(fakeslack.ButtonActions(m.Blocks)) == 0 && strings.Contains(string(m.Blocks), want)
}

// waitFor waits until cond holds, re-checking on every change of the fake
// or the resumer (and every 20 ms for the store), for at most 15 s.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		fsChanged, resumed := h.slack.Changed(), h.resumer.Changed()
		if cond() {
			return
		}
		select {
		case <-fsChanged:
		case <-resumed:
		case <-tick.C:
		case <-ctx.Done():
			h.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (h *harness) ephemeralsTo(user string) []string {
	var out []string
	for _, m := range h.slack.Ephemerals(user) {
		out = append(out, m.Text)
	}
	return out
}

// assertNoSecrets checks that no task token or Slack token reached the
// logs or anything Slack shows.
func (h *harness) assertNoSecrets() {
	t := h.t
	secrets := append([]string{h.slack.BotToken(), h.slack.AppToken(), "secret-bot-token", "secret-app-token"}, h.tokens...)
	var shown []string
	for _, ch := range h.slack.Channels() {
		for _, m := range h.slack.Messages(ch) {
			shown = append(shown, m.Text, string(m.Blocks))
		}
	}
	for _, u := range users {
		for _, m := range h.slack.Ephemerals(u) {
			shown = append(shown, m.Text, string(m.Blocks))
		}
		for _, v := range h.slack.Views(u) {
			shown = append(shown, v.PrivateMetadata, string(v.View))
		}
		if v, ok := h.slack.Home(u); ok {
			shown = append(shown, string(v.View))
		}
	}
	for _, p := range h.slack.ResponsePosts() {
		shown = append(shown, string(p.Body))
	}
	for _, a := range h.slack.Acks() {
		shown = append(shown, string(a.Payload))
	}
	logs := h.logJSON.String()
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("a secret reached the logs: %.20s…", s)
		}
		for _, text := range shown {
			if strings.Contains(text, s) {
				t.Errorf("a secret reached Slack: %.20s…", s)
			}
		}
	}
}

// output decodes what the execution received on success.
func output(t *testing.T, task workflowtest.Task) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(task.Output), &out); err != nil {
		t.Fatalf("output %q: %v", task.Output, err)
	}
	return out
}

func slackClientWithAppToken(h *harness, appToken string) *slack.Client {
	return slack.New(h.slack.BotToken(), slack.OptionAppLevelToken(appToken),
		slack.OptionAPIURL(h.slack.APIURL()), slack.OptionHTTPClient(NewHTTPClient(5*time.Second)))
}
