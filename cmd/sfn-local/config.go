package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap/zapcore"

	"github.com/sfnapprovals/approvals/sfnlocal/eventrule"
)

// config is what sfn-local reads from its flags and environment, once, at
// start. The AWS SDK resolves its own settings (AWS_REGION,
// AWS_ENDPOINT_URL_LAMBDA, AWS_ENDPOINT_URL_SQS, credentials) for the
// Lambda and SQS integrations.
type config struct {
	Addr        string
	Region      string
	Account     string
	Definitions string // directory of *.asl.json files; "" for none
	// Substitutions fill the ${Name} placeholders of the definitions, as
	// CloudFormation's DefinitionSubstitutions do.
	Substitutions map[string]string
	LogLevel      zapcore.Level
	// MaxFinished is how many ended executions the engine remembers.
	MaxFinished int

	// EventsFunction is the Lambda function that receives the execution
	// status change events, "" for none; EventsStatuses filters them on
	// detail.status (nil: all).
	EventsFunction string
	EventsStatuses []string

	// ReadTimeout bounds how long a request may take to arrive, headers
	// and body; IdleTimeout how long a keep-alive connection may wait for
	// the next one.
	ReadTimeout time.Duration
	IdleTimeout time.Duration

	// ECSTasks are the ECS task definitions ecs:runTask starts, each as a
	// command on this machine.
	ECSTasks []ecsTask
}

// ecsTask is one -ecs-task: a task definition family whose one container
// runs Command (followed by the state's override Command, if any).
type ecsTask struct {
	Family, Container string
	Command           []string
}

// parseECSTask reads "family=program args" or
// "family/container=program args"; the container is named after the
// family unless named.
func parseECSTask(s string) (ecsTask, error) {
	name, command, ok := strings.Cut(s, "=")
	fields := strings.Fields(command)
	if !ok || name == "" || len(fields) == 0 {
		return ecsTask{}, fmt.Errorf("want family=command or family/container=command, not %q", s)
	}
	family, container, named := strings.Cut(name, "/")
	if !named {
		container = family
	}
	if family == "" || container == "" {
		return ecsTask{}, fmt.Errorf("want family=command or family/container=command, not %q", s)
	}
	return ecsTask{Family: family, Container: container, Command: fields}, nil
}

// parseConfig reads the flags; LOG_LEVEL is the default of -log-level.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("sfn-local", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: sfn-local [flags]\n\n"+
			"Serves the local Step Functions engine behind the Step Functions API (AWS JSON 1.0).\n"+
			"Environment: SFN_MOCK_CONFIG (mock configuration file), LOG_LEVEL, and the AWS SDK's\n"+
			"AWS_ENDPOINT_URL_LAMBDA, AWS_ENDPOINT_URL_SQS, AWS_ENDPOINT_URL_S3 (path-style), AWS_REGION and credentials.\n\nFlags:")
		fs.PrintDefaults()
	}
	fs.StringVar(&c.Addr, "addr", "127.0.0.1:8083", "`host:port` to listen on (port 0 picks a free one); on a loopback address, requests\nwhose Host is not 127.0.0.1, [::1] or localhost are refused (DNS rebinding protection)")
	fs.StringVar(&c.Region, "region", "us-east-1", "region in the ARNs the engine mints")
	fs.StringVar(&c.Account, "account", "123456789012", "account ID in the ARNs the engine mints")
	fs.StringVar(&c.Definitions, "definitions", "", "`dir`ectory whose *.asl.json files become state machines at start, named after the file")
	c.Substitutions = map[string]string{}
	fs.Func("substitute", "`Name=value` filling the ${Name} placeholders of the -definitions files, as CloudFormation's DefinitionSubstitutions do (repeat for each name; the shipped workflows need Channel and Approvers, approve-or-escalate also EscalationApprovers)", func(s string) error {
		name, value, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return fmt.Errorf("want Name=value, not %q", s)
		}
		if _, dup := c.Substitutions[name]; dup {
			return fmt.Errorf("%s is given twice", name)
		}
		c.Substitutions[name] = value
		return nil
	})
	fs.IntVar(&c.MaxFinished, "max-finished-executions", 10000, "`count` of ended executions, with their histories, remembered before the oldest are forgotten (a local memory bound: AWS keeps them 90 days)")
	fs.StringVar(&c.EventsFunction, "events-function", "", "Lambda `function` (name or ARN) invoked asynchronously (InvocationType Event) with each execution status change event,\nas an EventBridge rule with a Lambda target would, through AWS_ENDPOINT_URL_LAMBDA; retried twice on failure")
	statuses := fs.String("events-statuses", "", "comma-separated `statuses` the -events-function rule matches on detail.status (RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED); default all")
	fs.Func("ecs-task", "`family=command` (or family/container=command): ecs:runTask of that task definition family runs command on this machine,\nwith the state's override Command appended and its Environment added (repeatable); the exit code is the container's", func(s string) error {
		t, err := parseECSTask(s)
		if err == nil {
			c.ECSTasks = append(c.ECSTasks, t)
		}
		return err
	})
	fs.DurationVar(&c.ReadTimeout, "read-timeout", 30*time.Second, "longest a request may take to arrive, headers and body; a slower client is cut off")
	fs.DurationVar(&c.IdleTimeout, "idle-timeout", 2*time.Minute, "longest an idle keep-alive connection is kept open")
	level := getenv("LOG_LEVEL")
	if level == "" {
		level = "info"
	}
	fs.StringVar(&level, "log-level", level, "log `level`: debug (one line per request), info, warn or error")
	err := fs.Parse(args)
	if err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q (see -h)", fs.Args())
	}
	if err := c.LogLevel.UnmarshalText([]byte(level)); err != nil {
		return c, fmt.Errorf("log level %q is not one of debug, info, warn, error", level)
	}
	if len(c.Account) != 12 {
		return c, fmt.Errorf("-account must be a 12-digit AWS account ID, not %q", c.Account)
	}
	for _, d := range c.Account {
		if d < '0' || d > '9' {
			return c, fmt.Errorf("-account must be a 12-digit AWS account ID, not %q", c.Account)
		}
	}
	if c.Region == "" {
		return c, fmt.Errorf("-region must not be empty")
	}
	if len(c.Substitutions) > 0 && c.Definitions == "" {
		return c, fmt.Errorf("-substitute needs -definitions")
	}
	if c.MaxFinished < 1 {
		return c, fmt.Errorf("-max-finished-executions must be at least 1, not %d", c.MaxFinished)
	}
	if c.EventsStatuses, err = parseStatuses(*statuses); err != nil {
		return c, err
	}
	if len(c.EventsStatuses) > 0 && c.EventsFunction == "" {
		return c, fmt.Errorf("-events-statuses needs -events-function")
	}
	if c.ReadTimeout <= 0 || c.IdleTimeout <= 0 {
		return c, fmt.Errorf("-read-timeout and -idle-timeout must be positive, not %v and %v", c.ReadTimeout, c.IdleTimeout)
	}
	return c, nil
}

// parseStatuses reads -events-statuses; "" is nil, which matches all.
func parseStatuses(list string) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	var out []string
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(eventrule.Statuses, s) {
			return nil, fmt.Errorf("-events-statuses: %q is not a status (want a comma-separated list of %s)", s, strings.Join(eventrule.Statuses, ", "))
		}
		out = append(out, s)
	}
	return out, nil
}
