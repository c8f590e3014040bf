// Package devstack runs the whole product on local parts: DynamoDB Local,
// the fake Slack, the Step Functions callback double (or the local engine),
// the notifier handler and any number of bot replicas, built from the same
// packages and constructors cmd/ uses, with settings from Options rather
// than the environment (the binaries themselves are tested in cmd/). The
// local demo, the load benchmark and the end-to-end tests are built on it.
package devstack

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/slack-go/slack"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/sfnapprovals/approvals/internal/dynamolocal"
	"github.com/sfnapprovals/approvals/internal/logging"
	"github.com/sfnapprovals/approvals/lambdas/events"
	"github.com/sfnapprovals/approvals/lambdas/notifier"
	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
	"github.com/sfnapprovals/approvals/slackbot"
	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

// Options configure a Stack. The zero value is a working stack.
type Options struct {
	// DynamoDBEndpoint is a running DynamoDB Local to use; empty starts one
	// for the stack. Each stack uses its own table either way.
	DynamoDBEndpoint string
	// Replicas is how many bot replicas start with the stack (default 2;
	// negative starts none).
	Replicas int
	// Logs receives every component's JSON log lines (default discarded).
	Logs io.Writer
	// Slack configures the fake Slack (user groups, rate limits, …).
	Slack fakeslack.Options
	// Bot configures every replica; zero fields take slackbot's defaults.
	Bot slackbot.Config
	// Now is every service's clock (default time.Now); tests move it to
	// run out claim leases and deadlines.
	Now func() time.Time
	// Engine runs executions on the local Step Functions engine
	// (sfnlocal) behind its API, instead of the callback double:
	// state machines are real ASL, the notifier is the in-process Lambda
	// function NotifierFunction, and Functions adds the state machines'
	// other functions by name. The engine's execution status change
	// events of ended executions go to the events handler
	// (EventsFunction), as the deployed EventBridge rule sends them; a
	// function of that name in Functions replaces it (to lose events).
	Engine    bool
	Functions map[string]lambda.Handler
	// Integrations are the engine's other integrations, asked after the
	// Lambda functions: ECS task stand-ins, S3 for distributed Maps.
	Integrations []task.Integration
	// EngineClock drives the engine's timers (Wait states, timeouts);
	// default real time. A sfnlocal.FakeClock fires timeouts at once.
	EngineClock sfnlocal.Clock
	// ExecutionChecks paces the replicas' checks of executions
	// (DescribeExecution, the safety net for lost events); nil takes
	// workflow.DefaultExecutionChecks.
	ExecutionChecks *workflow.ExecutionChecks
	// Locale is APPROVALS_LOCALE: the language of requests without one
	// (the notifier) and of the replicas' own texts (unless Bot.Locale
	// says otherwise); "" is English.
	Locale string
}

// Stack is a running local deployment. Close stops everything it started.
type Stack struct {
	Slack *fakeslack.Server
	// SFN is the Step Functions callback double; nil with Options.Engine.
	SFN *stepfunctionstest.Server
	// Service reads and writes the same table the replicas use.
	Service *workflow.Service
	Table   string

	ddbEndpoint string
	ownDDB      *dynamolocal.Server
	engine      *engine
	ddb         *dynamodb.Client
	sfn         *sfn.Client
	notifier    *notifier.Handler
	events      *events.Handler
	opts        Options
	logger      *zap.Logger

	mu       sync.Mutex
	replicas map[int]*replica
	emitted  [][]byte
}

type replica struct {
	cancel context.CancelFunc
	done   chan error
}

// Start starts a Stack. On error everything already started is stopped.
func Start(ctx context.Context, opts Options) (_ *Stack, err error) {
	if opts.Logs == nil {
		opts.Logs = io.Discard
	}
	if opts.Replicas == 0 {
		opts.Replicas = 2
	}
	s := &Stack{opts: opts, replicas: map[int]*replica{}, logger: logging.New(opts.Logs, zapcore.InfoLevel)}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()

	s.ddbEndpoint = opts.DynamoDBEndpoint
	if s.ddbEndpoint == "" {
		if s.ownDDB, err = dynamolocal.Start(ctx); err != nil {
			return nil, fmt.Errorf("start DynamoDB Local: %w", err)
		}
		s.ddbEndpoint = s.ownDDB.Endpoint()
	}
	if s.ddb, err = dynamolocal.Client(ctx, s.ddbEndpoint); err != nil {
		return nil, err
	}
	s.Table = "approvals-" + randomHex(4)
	if err = dynamo.CreateTable(ctx, s.ddb, s.Table); err != nil {
		return nil, fmt.Errorf("create table: %w", err)
	}
	if s.Slack, err = fakeslack.Start(opts.Slack); err != nil {
		return nil, fmt.Errorf("start fake Slack: %w", err)
	}
	if opts.Engine {
		// The engine invokes the notifier and the events handler, which
		// need the stack's services, which need the engine's client: they
		// are looked up late.
		parts := engineParts{
			notifier:  func(ctx context.Context, payload []byte) ([]byte, error) { return s.notifier.Invoke(ctx, payload) },
			events:    func(ctx context.Context, payload []byte) ([]byte, error) { return s.events.Invoke(ctx, payload) },
			functions: opts.Functions,
			others:    opts.Integrations,
			clock:     opts.EngineClock,
			sink:      s.emit,
		}
		if s.engine, err = startEngine(parts, s.logger.With(zap.String("service", "sfn-local"))); err != nil {
			return nil, err
		}
		s.sfn = stepfunctionstest.NewClient(ctx, s.engine.url)
	} else {
		s.SFN = stepfunctionstest.NewServer()
		s.sfn = stepfunctionstest.NewClient(ctx, s.SFN.URL())
	}

	s.Service = s.newService(slackbot.NewDirectory(s.slackClient(false), time.Minute))
	poster := chat.NewPoster(s.slackClient(false))
	s.notifier = notifier.New(s.newService(nil), poster, s.logger.With(zap.String("service", "notifier")))
	s.notifier.Locale = opts.Locale
	s.events = events.New(s.newService(nil), poster, s.logger.With(zap.String("service", "approvals-events")))

	for i := range max(opts.Replicas, 0) {
		if err = s.StartBot(i); err != nil {
			return nil, err
		}
	}
	if opts.Replicas > 0 {
		if err = s.Slack.WaitConnections(ctx, opts.Replicas); err != nil {
			return nil, fmt.Errorf("wait for %d bot connections: %w", opts.Replicas, err)
		}
	}
	return s, nil
}

// newService builds a Service on the stack's table and Step Functions
// double, as one process would.
func (s *Stack) newService(dir workflow.Directory) *workflow.Service {
	svc := workflow.NewService(dynamo.New(s.ddb, s.Table), stepfunctions.New(s.sfn), dir)
	svc.Audit = dynamo.NewAuditLog(s.ddb, s.Table, workflow.DefaultAuditRetention)
	if s.opts.Now != nil {
		svc.Now = s.opts.Now
	}
	return svc
}

// slackClient builds a Slack client as cmd/ does: the bot's with the
// app-level token and the connection-open limiter, the notifier's without.
func (s *Stack) slackClient(bot bool) *slack.Client {
	if !bot {
		return slack.New(s.Slack.BotToken(), slack.OptionAPIURL(s.Slack.APIURL()),
			slack.OptionHTTPClient(&http.Client{Timeout: 10 * time.Second}))
	}
	return slack.New(s.Slack.BotToken(), slack.OptionAPIURL(s.Slack.APIURL()),
		slack.OptionAppLevelToken(s.Slack.AppToken()),
		slack.OptionHTTPClient(slackbot.NewHTTPClient(10*time.Second)))
}

// StartBot starts bot replica i (again, after StopBot), as a separate
// process would: its own Slack connection, caches and service.
func (s *Stack) StartBot(i int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, running := s.replicas[i]; running {
		return fmt.Errorf("bot replica %d is already running", i)
	}
	api := s.slackClient(true)
	cfg := s.opts.Bot
	cfg.Locale = cmp.Or(cfg.Locale, s.opts.Locale)
	logger := s.logger.With(zap.String("service", "approvals-bot"), zap.Int("replica", i))
	svc := s.newService(slackbot.NewDirectory(api, time.Minute))
	svc.Executions = stepfunctions.NewExecutions(s.sfn)
	if s.opts.ExecutionChecks != nil {
		svc.ExecutionChecks = *s.opts.ExecutionChecks
	}
	bot := slackbot.New(cfg, svc, api, logger)
	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- bot.Run(ctx) }()
	s.replicas[i] = r
	return nil
}

// StopBot stops replica i as SIGTERM would and returns what Run returned.
func (s *Stack) StopBot(i int) error {
	s.mu.Lock()
	r, ok := s.replicas[i]
	delete(s.replicas, i)
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("bot replica %d is not running", i)
	}
	r.cancel()
	return <-r.done
}

// Close stops every replica and server the stack started.
func (s *Stack) Close() {
	s.mu.Lock()
	ids := make([]int, 0, len(s.replicas))
	for i := range s.replicas {
		ids = append(ids, i)
	}
	s.mu.Unlock()
	for _, i := range ids {
		_ = s.StopBot(i)
	}
	if s.Slack != nil {
		s.Slack.Close()
	}
	if s.SFN != nil {
		s.SFN.Close()
	}
	if s.engine != nil {
		s.engine.close()
	}
	if s.ownDDB != nil {
		_ = s.ownDDB.Close()
	}
}

// Env is the environment a bot or notifier process needs to join the
// stack (the same variables production uses).
func (s *Stack) Env() []string {
	return []string{
		"SLACK_BOT_TOKEN=" + s.Slack.BotToken(),
		"SLACK_APP_TOKEN=" + s.Slack.AppToken(),
		"SLACK_API_URL=" + s.Slack.APIURL(),
		"APPROVALS_TABLE=" + s.Table,
		"AWS_ENDPOINT_URL_DYNAMODB=" + s.ddbEndpoint,
		"AWS_ENDPOINT_URL_SFN=" + s.sfnURL(),
		"AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=local",
		"AWS_SECRET_ACCESS_KEY=local",
		"APPROVALS_HTTP_ADDR=127.0.0.1:0", // any free port: several bots share the machine
	}
}

func (s *Stack) sfnURL() string {
	if s.engine != nil {
		return s.engine.url
	}
	return s.SFN.URL()
}

// Pending is an execution paused on an approval task.
type Pending struct {
	Token        string
	ExecutionARN string
	Response     notifier.Response
}

// Request pauses a new execution on an approval task, the way Step
// Functions runs `lambda:invoke.waitForTaskToken`: it opens a task, invokes
// the notifier with the payload plus the task token, execution ARN and
// state name, and records the notifier's answer as the TaskSubmitted
// output. payload must not carry those three fields.
func (s *Stack) Request(ctx context.Context, execution string, payload map[string]any) (Pending, error) {
	if s.SFN == nil {
		return Pending{}, fmt.Errorf("devstack: Request needs the callback double; with Options.Engine start executions instead")
	}
	arn := "arn:aws:states:us-east-1:123456789012:execution:approvals-demo:" + execution
	token := s.SFN.StartTask(arn, "Approve")
	full := map[string]any{"taskToken": token, "executionArn": arn, "stateName": "Approve"}
	for k, v := range payload {
		full[k] = v
	}
	raw, err := json.Marshal(full)
	if err != nil {
		return Pending{}, fmt.Errorf("encode payload: %w", err)
	}
	resp, err := s.Invoke(ctx, raw)
	if err != nil {
		return Pending{Token: token, ExecutionARN: arn}, err
	}
	out, _ := json.Marshal(map[string]any{"ExecutedVersion": "$LATEST", "Payload": resp, "StatusCode": 200})
	s.SFN.Submit(token, out)
	return Pending{Token: token, ExecutionARN: arn, Response: resp}, nil
}

// Invoke calls the notifier handler with a raw payload, as Lambda would.
func (s *Stack) Invoke(ctx context.Context, payload []byte) (notifier.Response, error) {
	return s.notifier.Handle(ctx, payload)
}

// emit records an execution status change event of the engine.
func (s *Stack) emit(event []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emitted = append(s.emitted, event)
}

// Events returns the execution status change events the engine emitted so
// far, every status included, in order.
func (s *Stack) Events() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.emitted)
}

// DeliverEvent invokes the events handler with an event, as the
// EventBridge rule would: to replay a duplicate or a late event.
func (s *Stack) DeliverEvent(ctx context.Context, event []byte) (events.Response, error) {
	return s.events.Handle(ctx, event)
}

// WaitResumed waits until the execution paused on token has been resumed
// (or the task closed otherwise) and returns what it received.
func (s *Stack) WaitResumed(ctx context.Context, token string) (stepfunctionstest.Outcome, error) {
	return s.SFN.WaitClosed(ctx, token)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
