package main

import (
	"flag"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.uber.org/zap/zapcore"

	"github.com/sfnapprovals/approvals/internal/approvalsbot"
	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// The product's fixed, documented addresses.
const (
	defaultAddr      = "127.0.0.1:8080" // the stand-in's web page
	defaultSlackAddr = "127.0.0.1:8081" // the fake Slack's Web API and Socket Mode
	defaultBotAddr   = "127.0.0.1:8082" // the bot's /healthz, /readyz, /metrics
	defaultSFNAddr   = "127.0.0.1:8083" // the Step Functions API
	defaultS3Addr    = "127.0.0.1:8084" // the local S3
	defaultData      = ".approvals-local"
)

// productConfig is what the product runs with, read once from the flags
// and the environment and checked before anything starts.
type productConfig struct {
	Addr, SlackAddr, BotAddr, SFNAddr string
	// S3Addr serves the local S3 the batch workflows read and write.
	S3Addr string
	// Data is the folder that keeps DynamoDB Local's data and the fake
	// Slack's messages across restarts.
	Data string
	// Definitions is the folder of the user's *.asl.json files ("" for
	// none), reloaded when they change.
	Definitions string
	// Substitutions are the user's own -substitute values, beside the
	// ones approvals-local fills (substitutions()).
	Substitutions map[string]string
	LogPath       string
	LogLevel      zapcore.Level

	// Slack is the real workspace, or nil for the stand-in.
	Slack *realSlack
	// Channel, Approvers and EscalationApprovers fill the shipped
	// workflows' placeholders.
	Channel, Approvers, EscalationApprovers string
	// Locale is APPROVALS_LOCALE, for the notifier and the bot.
	Locale string
}

// realSlack is a Slack app in a real workspace.
type realSlack struct {
	BotToken, AppToken, APIURL string
}

// The stand-in's workspace, as the web page's default workspace file has
// it: alice approves, carol is in @editors, bob asks, mallory is nobody.
const (
	standInChannel    = channel
	standInApprovers  = alice + "," + editors
	standInEscalation = editors
)

type productFlagValues struct {
	addr, slackAddr, botAddr, sfnAddr *string
	s3Addr                            *string
	data, definitions, logLevel       *string
	channel, approvers, escalation    *string
	subs                              map[string]string
}

func productFlags(fs *flag.FlagSet) *productFlagValues {
	v := &productFlagValues{subs: map[string]string{}}
	v.addr = fs.String("addr", defaultAddr, "`host:port` of the Slack stand-in's web page (port 0: any free port)")
	v.slackAddr = fs.String("slack-addr", defaultSlackAddr, "`host:port` of the fake Slack's Web API and Socket Mode, which the bot and the notifier call")
	v.botAddr = fs.String("bot-addr", defaultBotAddr, "`host:port` of the bot's /healthz, /readyz and /metrics (its APPROVALS_HTTP_ADDR)")
	v.sfnAddr = fs.String("sfn-addr", defaultSFNAddr, "`host:port` of the Step Functions API: point the AWS CLI, an SDK or your tests at it with AWS_ENDPOINT_URL_SFN")
	v.s3Addr = fs.String("s3-addr", defaultS3Addr, "`host:port` (loopback) of the local S3 the batch workflows read their items from and write their results to,\nits buckets folders of <data>/s3: point the AWS CLI at it with --endpoint-url (path-style)")
	v.data = fs.String("data", defaultData, "`folder` that keeps approvals (DynamoDB Local) and the stand-in's messages across restarts")
	v.definitions = fs.String("definitions", "", "`folder` of your own state machine definitions (*.asl.json), created at start and updated when a file changes")
	fs.Func("substitute", "`Name=value` filling a ${Name} placeholder of your definitions, as CloudFormation's DefinitionSubstitutions do (repeatable); "+
		"Channel, Approvers, EscalationApprovers and the function ARNs of the shipped workflows are filled for you", func(s string) error {
		name, value, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return fmt.Errorf("want Name=value, not %q", s)
		}
		if _, dup := v.subs[name]; dup {
			return fmt.Errorf("%s is given twice", name)
		}
		v.subs[name] = value
		return nil
	})
	v.logLevel = fs.String("log-level", "info", "`level` of the JSON logs: debug, info, warn or error")
	v.channel = fs.String("channel", "", "with your Slack workspace: the `ID` (C…) of the channel the requests are posted in; invite the bot there")
	v.approvers = fs.String("approvers", "", "with your Slack workspace: who may decide, user and user-group `IDs` (U…, S…), comma-separated")
	v.escalation = fs.String("escalation-approvers", "", "with your Slack workspace: who decides escalated requests (approve-or-escalate), `IDs` as for -approvers (default: -approvers)")
	return v
}

var (
	channelID  = regexp.MustCompile(`^[CG][A-Z0-9]{2,}$`)
	approverID = regexp.MustCompile(`^[UWS][A-Z0-9]{2,}$`)
)

// config checks the flags and reads the Slack settings from getenv:
// SLACK_BOT_TOKEN and SLACK_APP_TOKEN (both, or neither for the
// stand-in) and SLACK_API_URL. An error is one line and never holds a
// token.
func (v *productFlagValues) config(getenv func(string) string, logPath string) (productConfig, error) {
	c := productConfig{
		Addr: *v.addr, SlackAddr: *v.slackAddr, BotAddr: *v.botAddr, SFNAddr: *v.sfnAddr, S3Addr: *v.s3Addr,
		Data: *v.data, Definitions: *v.definitions, Substitutions: v.subs, LogPath: logPath,
	}
	for _, a := range []struct{ flag, value string }{{"-addr", c.Addr}, {"-slack-addr", c.SlackAddr}, {"-bot-addr", c.BotAddr}, {"-sfn-addr", c.SFNAddr}, {"-s3-addr", c.S3Addr}} {
		if _, _, err := net.SplitHostPort(a.value); err != nil {
			return c, fmt.Errorf("%s must be host:port, such as 127.0.0.1:8080, not %q", a.flag, a.value)
		}
	}
	if c.Data == "" {
		return c, fmt.Errorf("-data must name a folder")
	}
	if err := c.LogLevel.UnmarshalText([]byte(*v.logLevel)); err != nil || c.LogLevel < zapcore.DebugLevel || c.LogLevel > zapcore.ErrorLevel {
		return c, fmt.Errorf("-log-level must be debug, info, warn or error, not %q", *v.logLevel)
	}
	if c.LogPath == "" {
		c.LogPath = filepath.Join(c.Data, "approvals-local.log")
	}

	locale, err := workflow.LocaleVar(getenv)
	if err != nil {
		return c, err
	}
	c.Locale = locale
	bot, app := getenv("SLACK_BOT_TOKEN"), getenv("SLACK_APP_TOKEN")
	switch {
	case bot == "" && app == "":
		if *v.channel != "" || *v.approvers != "" || *v.escalation != "" {
			return c, fmt.Errorf("-channel, -approvers and -escalation-approvers are for your Slack workspace (set SLACK_BOT_TOKEN and SLACK_APP_TOKEN); the stand-in posts in #publishing (%s), where alice (%s) and @editors (%s) approve", standInChannel, alice, editors)
		}
		c.Channel, c.Approvers, c.EscalationApprovers = standInChannel, standInApprovers, standInEscalation
	case bot == "":
		return c, fmt.Errorf("SLACK_APP_TOKEN is set but SLACK_BOT_TOKEN is not: set both to use your Slack workspace, or neither for the stand-in")
	case app == "":
		return c, fmt.Errorf("SLACK_BOT_TOKEN is set but SLACK_APP_TOKEN is not: set both to use your Slack workspace, or neither for the stand-in")
	default:
		s, err := realSlackConfig(bot, app, getenv("SLACK_API_URL"))
		if err != nil {
			return c, err
		}
		c.Slack = s
		if err := c.setWorkspace(*v.channel, *v.approvers, *v.escalation); err != nil {
			return c, err
		}
	}
	for name := range c.Substitutions {
		if _, ours := c.ownSubstitutions()[name]; !ours {
			continue
		}
		if slices.Contains([]string{definitions.Channel, definitions.Approvers, definitions.EscalationApprovers}, name) {
			return c, fmt.Errorf("-substitute %s=…: approvals-local fills %s itself (with your Slack workspace, from -channel, -approvers or -escalation-approvers)", name, name)
		}
		return c, fmt.Errorf("-substitute %s=…: approvals-local fills %s itself, with a function it runs", name, name)
	}
	return c, nil
}

// realSlackConfig checks the tokens and API URL as the bot does.
func realSlackConfig(bot, app, apiURL string) (*realSlack, error) {
	_, err := approvalsbot.LoadConfig(func(k string) string {
		return map[string]string{"SLACK_BOT_TOKEN": bot, "SLACK_APP_TOKEN": app, "SLACK_API_URL": apiURL, "APPROVALS_TABLE": approvalsTable}[k]
	}, false)
	if err != nil {
		return nil, err
	}
	if apiURL == "" {
		apiURL = approvalsbot.DefaultAPIURL
	}
	return &realSlack{BotToken: bot, AppToken: app, APIURL: apiURL}, nil
}

// setWorkspace checks the channel and approvers of a real workspace.
func (c *productConfig) setWorkspace(channel, approvers, escalation string) error {
	switch {
	case channel == "":
		return fmt.Errorf("with your Slack workspace, pass -channel C…: the ID of the channel to post in (invite the bot there with /invite @approvals)")
	case !channelID.MatchString(channel):
		return fmt.Errorf("-channel must be a channel ID such as C0123ABCD (in Slack: the channel's details, at the bottom), not %q", channel)
	case approvers == "":
		return fmt.Errorf("with your Slack workspace, pass -approvers U…,S…: the user and user-group IDs who may decide")
	}
	if escalation == "" {
		escalation = approvers
	}
	for _, list := range []struct{ flag, value string }{{"-approvers", approvers}, {"-escalation-approvers", escalation}} {
		for _, id := range strings.Split(list.value, ",") {
			if !approverID.MatchString(id) {
				return fmt.Errorf("%s must be user and user-group IDs (U…, W…, S…) separated by commas without spaces, not %q", list.flag, list.value)
			}
		}
	}
	c.Channel, c.Approvers, c.EscalationApprovers = channel, approvers, escalation
	return nil
}
