package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/approvalsbot"
	"github.com/sfnapprovals/approvals/internal/auditstream"
	"github.com/sfnapprovals/approvals/internal/dynamolocal"
	"github.com/sfnapprovals/approvals/internal/logging"
	"github.com/sfnapprovals/approvals/internal/s3local"
	"github.com/sfnapprovals/approvals/lambdas/archive"
	"github.com/sfnapprovals/approvals/lambdas/events"
	"github.com/sfnapprovals/approvals/lambdas/notifier"
	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/dynamo"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions"
)

// approvalsTable is the DynamoDB table of the local product.
const approvalsTable = "approvals"

// reasonRestarted is why the requests of executions lost with the last
// run are closed: the engine keeps executions in memory.
const reasonRestarted = "the local engine restarted"

// product is the running local product. Its parts stop in the order that
// lets each finish its work: the page, the definitions watcher, the bot
// (which drains its clicks against Slack, DynamoDB and the engine), the
// engine, the local S3, the fake Slack (saved once more), DynamoDB Local.
type product struct {
	cfg  productConfig
	say  func(format string, args ...any)
	log  *zap.Logger
	logs *os.File
	lock *dataLock
	lns  *listeners

	ddb      *dynamolocal.Server
	db       *dynamodb.Client
	slack    *fakeslack.Server // nil with a real workspace
	saver    *slackSaver
	eng      *engine
	sfn      *sfn.Client
	s3       *s3local.Server // the batch workflows' S3
	objects  *awss3.Client
	service  *workflow.Service
	notifier *notifier.Handler
	events   *events.Handler
	poster   *chat.Poster
	bot      *approvalsbot.Bot
	stopBot  context.CancelFunc
	page     *pageServer

	stopWatch context.CancelFunc
	watched   chan struct{}

	archiveOut  *os.File // the audit archive's lines (archiveFile)
	stopArchive context.CancelFunc
	archived    chan struct{} // closed when the archive has caught up for the last time

	// closedAtStart are the requests closed because their execution was
	// lost with the last run.
	closedAtStart int
	// restored is how many of the stand-in's messages were restored.
	restored int
	failed   chan error
	stopOnce sync.Once
}

// awsConfig is the AWS configuration of the local parts: fixed dummy
// credentials, so nothing reads the user's AWS settings.
func awsConfig() aws.Config {
	return aws.Config{Region: localRegion, Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}
}

// startProduct checks the prerequisites and the addresses, then starts
// every part. On error, what started is stopped. say prints a line of
// what happens (the banner, definitions reloaded) for people.
func startProduct(ctx context.Context, cfg productConfig, getenv func(string) string, say func(string, ...any)) (_ *product, err error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	setup, missing := dynamolocal.Locate(ctx, getenv, wd)
	var problems startError
	for _, m := range missing {
		problems = append(problems, m.String())
	}
	lns, taken := listen(cfg)
	problems = append(problems, taken...)
	if len(problems) > 0 {
		lns.close()
		return nil, problems
	}
	p := &product{cfg: cfg, say: say, lns: lns, failed: make(chan error, 4), log: zap.NewNop()}
	defer func() {
		if err != nil {
			p.stop()
		}
	}()
	if p.lock, err = lockData(cfg.Data); err != nil {
		return nil, startError{err.Error()}
	}
	if p.logs, err = os.OpenFile(cfg.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return nil, fmt.Errorf("open the log file: %w", err)
	}
	p.log = logging.New(p.logs, cfg.LogLevel)

	if p.ddb, err = dynamolocal.StartWith(ctx, dynamolocal.Options{Dir: setup.Dir, Java: setup.Java, DBPath: filepath.Join(cfg.Data, "dynamodb")}); err != nil {
		return nil, err
	}
	if p.db, err = dynamolocal.Client(ctx, p.ddb.Endpoint()); err != nil {
		return nil, err
	}
	if err = p.startArchive(ctx); err != nil {
		return nil, err
	}
	if err = p.startSlack(); err != nil {
		return nil, err
	}
	if err = p.startS3(ctx); err != nil {
		return nil, err
	}
	if err = p.startEngine(ctx); err != nil {
		return nil, err
	}
	p.closeLost(ctx)
	if err = p.startBot(ctx); err != nil {
		return nil, err
	}
	if p.slack != nil {
		ln := lns.page
		lns.page = nil // the page's server closes it
		p.page = servePage(ln, newPage(pageParts{Slack: p.slack, SFN: p.sfn, Logger: p.log.With(zap.String("service", "page"))}), p.log)
		go p.watchFailure(p.page.failed, "the web page stopped")
	}
	go p.watchFailure(p.eng.api.Failed(), "the Step Functions API stopped")
	go p.watchFailure(p.s3.Failed(), "the local S3 stopped")
	return p, nil
}

// archiveFile is the audit archive, in the data folder: one JSON line per
// audit record, as the deployed archive writes to its log group.
const archiveFile = "audit-archive.jsonl"

// startArchive creates the table with its stream and follows the stream
// into archiveFile, as the deployed event source mapping and
// approvals-archive do. An archive that already holds lines goes on after
// its last one, which DynamoDB Local's stream keeps across restarts.
func (p *product) startArchive(ctx context.Context) error {
	arn, err := auditstream.CreateTable(ctx, p.db, approvalsTable)
	if err != nil {
		return err
	}
	var stream, last string
	if p.archiveOut, stream, last, err = auditstream.OpenArchive(filepath.Join(p.cfg.Data, archiveFile)); err != nil {
		return fmt.Errorf("open the audit archive: %w", err)
	}
	log := p.log.With(zap.String("service", "approvals-archive"))
	streams := dynamodbstreams.NewFromConfig(awsConfig(), func(o *dynamodbstreams.Options) { o.BaseEndpoint = aws.String(p.ddb.Endpoint()) })
	f := auditstream.NewFollower(streams, arn, archive.New(auditstream.Decoder{}, p.archiveOut, log))
	f.After(stream, last)
	if _, err := f.CatchUp(ctx); err != nil {
		return fmt.Errorf("audit archive: %w", err)
	}
	archiveCtx, cancel := context.WithCancel(context.Background())
	p.stopArchive, p.archived = cancel, make(chan struct{})
	go func() {
		defer close(p.archived)
		report := func(err error) { log.Warn("the audit archive could not catch up; it tries again", zap.Error(err)) }
		_ = f.Run(archiveCtx, time.Second, report)
		if _, err := f.CatchUp(context.Background()); err != nil {
			report(err)
		}
	}()
	return nil
}

// startSlack starts the fake Slack, restoring its messages, or, with a
// real workspace, only the Slack client of the notifier.
func (p *product) startSlack() error {
	token, apiURL := "", ""
	if p.cfg.Slack == nil {
		var err error
		p.slack, err = fakeslack.Start(fakeslack.Options{Listener: p.lns.slack, Groups: map[string][]string{editors: {carol}}})
		p.lns.slack = nil // the fake closes it
		if err != nil {
			return err
		}
		path := filepath.Join(p.cfg.Data, slackFile)
		if p.restored, err = restoreSlack(p.slack, path); err != nil {
			return startError{err.Error()}
		}
		p.saver = saveSlack(p.slack, path, p.log.With(zap.String("service", "fake-slack")))
		token, apiURL = p.slack.BotToken(), p.slack.APIURL()
	} else {
		token, apiURL = p.cfg.Slack.BotToken, p.cfg.Slack.APIURL
	}
	p.poster = chat.NewPoster(slack.New(token, slack.OptionAPIURL(apiURL), slack.OptionHTTPClient(&http.Client{Timeout: 10 * time.Second})))
	return nil
}

// newService builds a service on the table and the engine, as the
// notifier and the events Lambda have one.
func (p *product) newService() *workflow.Service {
	svc := workflow.NewService(dynamo.New(p.db, approvalsTable), stepfunctions.New(p.sfn), nil)
	svc.Executions = stepfunctions.NewExecutions(p.sfn)
	return svc
}

// closeLost closes the open requests whose executions were lost when the
// last run stopped, and updates their messages, so no live button points
// at an execution that is gone. A failure is reported and left to the
// bot's sweeper.
func (p *product) closeLost(ctx context.Context) {
	closed, err := p.service.CloseGone(ctx, reasonRestarted)
	if err != nil {
		p.log.Warn("closing the requests of lost executions failed", zap.Error(err))
		p.say("Some requests of executions lost with the last run could not be closed: %v", err)
	}
	p.closedAtStart = len(closed)
	for _, a := range closed {
		if a.MessageTS == "" {
			continue
		}
		log := p.log.With(zap.String("approval_id", a.ID), zap.String("execution_arn", a.ExecutionARN))
		if err := p.poster.UpdateMessage(ctx, a); err != nil {
			log.Warn("request message not updated; the bot's sweeper will", zap.Error(err))
			continue
		}
		if err := p.service.MessageSynced(ctx, a.ID); err != nil {
			log.Warn("could not record that the message is updated", zap.Error(err))
		}
		if err := p.poster.PostReply(ctx, a); err != nil {
			log.Warn("thread reply not posted", zap.Error(err))
		}
	}
}

// startBot starts the approvals bot as cmd/approvals-bot runs it, against
// the fake Slack or the real workspace, and waits for its Socket Mode
// connection to the fake.
func (p *product) startBot(ctx context.Context) error {
	env := map[string]string{
		"APPROVALS_TABLE":     approvalsTable,
		"APPROVALS_HTTP_ADDR": p.lns.bot.Addr().String(),
		"LOG_LEVEL":           p.cfg.LogLevel.String(),
		"APPROVALS_LOCALE":    p.cfg.Locale,
	}
	if p.slack != nil {
		env["SLACK_BOT_TOKEN"], env["SLACK_APP_TOKEN"], env["SLACK_API_URL"] = p.slack.BotToken(), p.slack.AppToken(), p.slack.APIURL()
	} else {
		env["SLACK_BOT_TOKEN"], env["SLACK_APP_TOKEN"], env["SLACK_API_URL"] = p.cfg.Slack.BotToken, p.cfg.Slack.AppToken, p.cfg.Slack.APIURL
	}
	cfg, err := approvalsbot.LoadConfig(func(k string) string { return env[k] }, false)
	if err != nil {
		return err
	}
	cfg.DynamoDBEndpoint, cfg.SFNEndpoint, cfg.LocalDynamoDB = p.ddb.Endpoint(), p.eng.api.URL(), true
	botCtx, cancel := context.WithCancel(context.Background())
	p.stopBot = cancel
	ln := p.lns.bot
	p.lns.bot = nil // the bot closes it
	if p.bot, err = approvalsbot.Start(botCtx, cfg, awsConfig(), ln, p.log.With(zap.String("service", "approvals-bot"))); err != nil {
		return err
	}
	go func() {
		if err := p.bot.Wait(); botCtx.Err() == nil {
			p.failed <- fmt.Errorf("the approvals bot stopped: %v", err)
		}
	}()
	if p.slack != nil {
		if err := p.slack.WaitConnections(ctx, 1); err != nil {
			return fmt.Errorf("wait for the bot to connect to the fake Slack: %w", err)
		}
	}
	return nil
}

func (p *product) watchFailure(done <-chan struct{}, what string) {
	<-done
	p.failed <- errors.New(what)
}

// Failed receives an error when a part stopped by itself.
func (p *product) Failed() <-chan error { return p.failed }

// stop stops every part that started, in order. It is safe to call more
// than once.
func (p *product) stop() {
	p.stopOnce.Do(func() {
		if p.page != nil {
			p.page.stop()
		}
		if p.stopWatch != nil {
			p.stopWatch()
			<-p.watched
		}
		if p.bot != nil {
			p.stopBot()
			_ = p.bot.Wait()
		}
		if p.eng != nil {
			p.eng.close()
		}
		if p.s3 != nil {
			if err := p.s3.Close(); err != nil {
				p.log.Warn("stop the local S3", zap.Error(err))
			}
		}
		if p.saver != nil {
			p.saver.close()
		}
		if p.slack != nil {
			p.slack.Close()
		}
		if p.stopArchive != nil {
			p.stopArchive()
			<-p.archived
		}
		if p.archiveOut != nil {
			if err := p.archiveOut.Close(); err != nil {
				p.log.Warn("close the audit archive", zap.Error(err))
			}
		}
		if p.ddb != nil {
			if err := p.ddb.Close(); err != nil {
				p.log.Warn("stop DynamoDB Local", zap.Error(err))
			}
		}
		p.lns.close()
		_ = p.log.Sync()
		if p.logs != nil {
			_ = p.logs.Close()
		}
		if p.lock != nil {
			p.lock.release()
		}
	})
}

// runProduct starts the product, prints its banner and runs until ctx
// ends or a part fails, then stops everything.
func runProduct(ctx context.Context, cfg productConfig, getenv func(string) string, stdout io.Writer) error {
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stdout, format+"\n", args...)
	}
	if cfg.Slack == nil {
		say("Starting approvals-local: DynamoDB Local, the local Step Functions engine, the notifier, the approvals bot and the Slack stand-in…")
	} else {
		say("Starting approvals-local with your Slack workspace: DynamoDB Local, the local Step Functions engine, the notifier and the approvals bot…")
	}
	p, err := startProduct(ctx, cfg, getenv, say)
	if err != nil && ctx.Err() != nil {
		say("Stopped before it was ready.")
		return nil
	}
	if err != nil {
		return err
	}
	p.banner()
	p.watchDefinitions()
	var failure error
	select {
	case <-ctx.Done():
		say("Stopping… (Ctrl-C again quits at once)")
	case failure = <-p.Failed():
		say("Stopping: %v", failure)
	}
	p.stop()
	say("Stopped.")
	return failure
}
