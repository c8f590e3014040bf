// Command sfn-local serves the local Step Functions engine
// (sfnlocal) behind the Step Functions API, so the aws-sdk-go-v2
// sfn client and the AWS CLI run state machines on this machine:
//
//	go run ./cmd/sfn-local -addr 127.0.0.1:8083 -definitions workflow/definitions \
//		-substitute Channel=C0123ABCD -substitute Approvers=U0123ABCD -substitute EscalationApprovers=S0456EFGH \
//		-substitute NotifierFunctionArn=approvals-notifier -substitute DraftAgentFunctionArn=draft-agent \
//		-substitute PublishFunctionArn=publish -substitute FileRejectionFunctionArn=file-rejection -substitute ProcessItemFunctionArn=process-item \
//		-substitute BatchBucket=approvals-batch -substitute WorkerCluster=local -substitute WorkerTaskDefinition=process-item \
//		-substitute WorkerContainer=worker -substitute WorkerSubnets=subnet-local -substitute WorkerSecurityGroups=sg-local
//	aws --endpoint-url http://127.0.0.1:8083 stepfunctions list-state-machines
//
// TestState (aws stepfunctions test-state) runs one state of a workflow
// without running it whole. The SDKs call that operation on the host
// "sync-" + the endpoint's host, which a local endpoint does not have: turn
// the prefix off (AWS CLI and boto3: AWS_DISABLE_HOST_PREFIX_INJECTION=true;
// aws-sdk-go-v2: smithyhttp.DisableEndpointHostPrefix on the call's
// context):
//
//	AWS_DISABLE_HOST_PREFIX_INJECTION=true aws --endpoint-url http://127.0.0.1:8083 \
//		stepfunctions test-state --definition '{"Type":"Pass","End":true}' --input '{"a":1}' --inspection-level DEBUG
//
// Task states run Lambda functions and send SQS messages through the AWS
// SDK (point them at local stand-ins with AWS_ENDPOINT_URL_LAMBDA and
// AWS_ENDPOINT_URL_SQS), start ECS tasks as local commands (-ecs-task), or
// answer from the mock configuration file named by SFN_MOCK_CONFIG for
// executions started on "<stateMachineArn>#<TestCase>". A distributed Map
// reads its items from and writes its results to S3 at AWS_ENDPOINT_URL_S3
// (path-style).
//
// With -events-function, every execution status change event (the
// document AWS sends EventBridge, detail-type "Step Functions Execution
// Status Change") invokes that Lambda function asynchronously, as an
// EventBridge rule with a Lambda target would; -events-statuses filters
// them. On a loopback address it answers only requests whose Host is a
// loopback name. Run with -h for the flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/logging"
	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/eventrule"
	"github.com/sfnapprovals/approvals/sfnlocal/host"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// shutdownTimeout bounds how long in-flight requests may finish after
// SIGINT or SIGTERM.
const shutdownTimeout = 3 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "sfn-local: %v\n", err)
		os.Exit(1)
	}
}

// run serves the API until ctx ends, then shuts down within
// shutdownTimeout. It prints "sfn-local listening on http://<addr>" to
// stdout once it accepts connections, and logs to stderr.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	log := logging.New(stderr, cfg.LogLevel)
	defer func() { _ = log.Sync() }()

	w, err := newRouter(ctx, cfg, getenv, log)
	if err != nil {
		return err
	}
	defer w.tasks.Close()
	opts := sfnlocal.Options{
		Region: cfg.Region, AccountID: cfg.Account, Logger: log, Integrations: []task.Integration{w.router},
		MaxFinishedExecutions: cfg.MaxFinished,
	}
	if cfg.EventsFunction != "" {
		rule, err := eventrule.New(eventrule.Config{Function: cfg.EventsFunction, Statuses: cfg.EventsStatuses, Lambda: w.fns, Logger: log})
		if err != nil {
			return err
		}
		opts.Events = rule.Deliver
	}
	engine := sfnlocal.New(opts)
	defer engine.Close()

	if cfg.Definitions != "" {
		roleArn := fmt.Sprintf("arn:aws:iam::%s:role/sfn-local", cfg.Account)
		arns, err := createDefinitions(ctx, engine, cfg.Definitions, roleArn, cfg.Substitutions)
		if err != nil {
			return err
		}
		for _, arn := range arns {
			log.Info("state machine created", zap.String("state_machine_arn", arn))
		}
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := host.Serve(ln, engine, host.ServerOptions{ReadTimeout: cfg.ReadTimeout, IdleTimeout: cfg.IdleTimeout, Logger: log})
	fmt.Fprintf(stdout, "sfn-local listening on %s\n", srv.URL())

	select {
	case <-srv.Failed():
		return fmt.Errorf("serve: %w", srv.Err())
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		log.Warn("requests still in flight at shutdown", zap.Error(err))
	}
	return nil
}
