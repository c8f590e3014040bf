package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/lambdas/events"
	"github.com/sfnapprovals/approvals/lambdas/notifier"
	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/eventrule"
	"github.com/sfnapprovals/approvals/sfnlocal/host"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/ecs"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	s3integ "github.com/sfnapprovals/approvals/sfnlocal/integrations/s3"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// definitionsPoll is how often the -definitions folder is read for
// changes.
const definitionsPoll = time.Second

// roleARN is the role the local state machines are created with.
var roleARN = fmt.Sprintf("arn:aws:iam::%s:role/approvals-local", localAccount)

// endedStatuses are the statuses whose events reach the events handler,
// as deploy/cloudformation.yaml's rule matches them.
var endedStatuses = []string{"SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED"}

// engine is the local Step Functions engine behind its API.
type engine struct {
	*sfnlocal.Engine
	api *host.Server
	// shipped and yours are the state machines deployed at start: the
	// shipped workflows, and the first sync of -definitions.
	shipped []host.Result
	yours   []host.Result
	watcher *host.Watcher
	// tasks runs the ECS stand-ins; closed after the engine.
	tasks *ecs.Integration
}

// startEngine starts the engine with the notifier, the events handler and
// the stand-in functions in process, serves its API, deploys the shipped
// workflows and the user's definitions.
func (p *product) startEngine(ctx context.Context) error {
	log := p.log.With(zap.String("service", "sfn-local"))
	fns := lambda.New(nil)
	// The handlers need the engine's client, which needs the engine: they
	// are looked up when invoked.
	fns.Register(notifierFunction, func(ctx context.Context, payload []byte) ([]byte, error) { return p.notifier.Invoke(ctx, payload) })
	fns.Register(eventsFunction, func(ctx context.Context, payload []byte) ([]byte, error) { return p.events.Invoke(ctx, payload) })
	items := newItemFailures()
	for name, h := range standIns(time.Now, items) {
		fns.Register(name, h)
	}
	tasks := ecs.New(ecs.Options{Logger: log.With(zap.String("service", "ecs"))})
	if err := tasks.Register(ecs.TaskDefinition{Family: workerFamily, Container: workerContainer, Run: items.worker}); err != nil {
		return err
	}
	rule, err := eventrule.New(eventrule.Config{Function: eventsFunction, Statuses: endedStatuses, Lambda: fns, Logger: log})
	if err != nil {
		return err
	}
	e := &engine{tasks: tasks, Engine: sfnlocal.New(sfnlocal.Options{
		Region: localRegion, AccountID: localAccount, Logger: log,
		Integrations: []task.Integration{integrations.NewRouter(nil, fns, tasks, s3integ.New(p.objects))},
		Events:       rule.Deliver,
	})}
	p.eng = e
	ln := p.lns.sfn
	p.lns.sfn = nil // the server closes it
	e.api = host.Serve(ln, e.Engine, host.ServerOptions{Logger: log})
	p.sfn = sfn.New(sfn.Options{Region: localRegion, BaseEndpoint: aws.String(e.api.URL()), Credentials: awsConfig().Credentials})

	p.service = p.newService()
	p.notifier = notifier.New(p.newService(), p.poster, p.log.With(zap.String("service", "notifier")))
	p.notifier.Locale = p.cfg.Locale
	p.events = events.New(p.newService(), p.poster, p.log.With(zap.String("service", "approvals-events")))

	subs := p.cfg.substitutions()
	for _, file := range definitions.Names() {
		raw, err := definitions.Load(file)
		if err != nil {
			return err
		}
		r := host.Result{Name: strings.TrimSuffix(file, host.Suffix)}
		d, err := host.Fill(r.Name, "", raw, subs)
		if err == nil {
			r.ARN, r.Change, err = host.Deploy(ctx, e.Engine, d, roleARN)
		}
		if err != nil {
			return fmt.Errorf("deploy the shipped workflow %s: %w", file, err)
		}
		e.shipped = append(e.shipped, r)
	}
	if p.cfg.Definitions != "" {
		e.watcher = host.NewWatcher(e.Engine, p.cfg.Definitions, subs, roleARN)
		if e.yours, err = e.watcher.Sync(ctx); errors.Is(err, fs.ErrNotExist) {
			return startError{fmt.Sprintf("-definitions %s: there is no such folder", p.cfg.Definitions)}
		} else if err != nil {
			return startError{fmt.Sprintf("-definitions %s: %v", p.cfg.Definitions, err)}
		}
	}
	return nil
}

// watchDefinitions keeps the user's state machines in step with their
// files until stop, printing what changed.
func (p *product) watchDefinitions() {
	if p.eng.watcher == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.stopWatch, p.watched = cancel, make(chan struct{})
	go func() {
		defer close(p.watched)
		p.eng.watcher.Watch(ctx, definitionsPoll, func(r host.Result) {
			p.say("%s", describeResult(r))
			if r.Err != nil {
				p.log.Warn("definition not deployed", zap.String("path", r.Path), zap.Error(r.Err))
			}
		})
	}()
}

// describeResult says in one line what a sync did with a file.
func describeResult(r host.Result) string {
	var unfilled *host.UnfilledError
	switch {
	case r.Removed:
		return fmt.Sprintf("definitions: %s was removed; state machine %s stays until approvals-local restarts", r.Path, r.Name)
	case r.Name == "" && r.Err != nil:
		return fmt.Sprintf("definitions: %v", r.Err)
	case errors.As(r.Err, &unfilled):
		return fmt.Sprintf("definitions: %s not deployed: %v (pass -substitute %s=…)", r.Path, r.Err, strings.Join(unfilled.Names, "=… -substitute "))
	case r.Err != nil:
		return fmt.Sprintf("definitions: %s not deployed: %v", r.Path, r.Err)
	}
	return fmt.Sprintf("definitions: %s %s from %s", r.Name, r.Change, r.Path)
}

func (e *engine) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = e.api.Shutdown(ctx)
	e.Engine.Close()
	e.tasks.Close()
}
