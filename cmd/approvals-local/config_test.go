package main

import (
	"maps"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/workflow/definitions"
)

func parseProduct(args []string, env map[string]string) (productConfig, error) {
	fs := flagSet()
	v := productFlags(fs)
	if err := fs.Parse(args); err != nil {
		return productConfig{}, err
	}
	return v.config(func(k string) string { return env[k] }, "")
}

var realTokens = map[string]string{"SLACK_BOT_TOKEN": "xoxb-1-secret", "SLACK_APP_TOKEN": "xapp-1-secret"}

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	c, err := parseProduct(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.SlackAddr != "127.0.0.1:8081" || c.BotAddr != "127.0.0.1:8082" || c.SFNAddr != "127.0.0.1:8083" ||
		c.Data != ".approvals-local" || c.LogPath != ".approvals-local/approvals-local.log" || c.Slack != nil {
		t.Errorf("defaults = %+v", c)
	}
	subs := c.substitutions()
	for name, want := range map[string]string{
		definitions.Channel: "C0PUBLISH", definitions.Approvers: "U0ALICE,S0EDITORS", definitions.EscalationApprovers: "S0EDITORS",
		definitions.NotifierFunctionArn: "arn:aws:lambda:us-east-1:123456789012:function:approvals-notifier",
	} {
		if subs[name] != want {
			t.Errorf("${%s} = %q, want %q", name, subs[name], want)
		}
	}
}

// With both Slack tokens, the product uses the workspace; the channel and
// approvers fill the shipped workflows.
func TestConfigRealWorkspace(t *testing.T) {
	t.Parallel()
	env := maps.Clone(realTokens)
	env["SLACK_API_URL"] = "http://127.0.0.1:1/api/"
	c, err := parseProduct([]string{"-channel", "C0123ABCD", "-approvers", "U0123ABCD,S0456EFGH", "-substitute", "MyFunctionArn=arn:aws:lambda:us-east-1:123456789012:function:mine"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Slack == nil || c.Slack.BotToken != "xoxb-1-secret" || c.Slack.AppToken != "xapp-1-secret" || c.Slack.APIURL != "http://127.0.0.1:1/api/" {
		t.Errorf("Slack = %+v", c.Slack)
	}
	subs := c.substitutions()
	if subs[definitions.Channel] != "C0123ABCD" || subs[definitions.Approvers] != "U0123ABCD,S0456EFGH" || subs[definitions.EscalationApprovers] != "U0123ABCD,S0456EFGH" || subs["MyFunctionArn"] == "" {
		t.Errorf("substitutions = %v", subs)
	}
	delete(env, "SLACK_API_URL")
	if c, err := parseProduct([]string{"-channel", "G0123ABCD", "-approvers", "W0123ABCD", "-escalation-approvers", "S0LEADS"}, env); err != nil || c.Slack.APIURL != "https://slack.com/api/" || c.EscalationApprovers != "S0LEADS" {
		t.Errorf("config = %+v, %v", c, err)
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	real := []string{"-channel", "C0123ABCD", "-approvers", "U0123ABCD"}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"bot token alone", nil, map[string]string{"SLACK_BOT_TOKEN": "xoxb-1-secret"}, "SLACK_BOT_TOKEN is set but SLACK_APP_TOKEN is not"},
		{"app token alone", nil, map[string]string{"SLACK_APP_TOKEN": "xapp-1-secret"}, "SLACK_APP_TOKEN is set but SLACK_BOT_TOKEN is not"},
		{"user token", real, map[string]string{"SLACK_BOT_TOKEN": "xoxp-1-secret", "SLACK_APP_TOKEN": "xapp-1-secret"}, "SLACK_BOT_TOKEN must be a bot token"},
		{"tokens swapped", real, map[string]string{"SLACK_BOT_TOKEN": "xapp-1-secret", "SLACK_APP_TOKEN": "xoxb-1-secret"}, "SLACK_BOT_TOKEN must be a bot token"},
		{"api url without slash", real, map[string]string{"SLACK_BOT_TOKEN": "xoxb-1-secret", "SLACK_APP_TOKEN": "xapp-1-secret", "SLACK_API_URL": "https://slack.com/api"}, "SLACK_API_URL must end with a slash"},
		{"no channel", []string{"-approvers", "U0123ABCD"}, realTokens, "pass -channel C…"},
		{"channel name", []string{"-channel", "#general", "-approvers", "U0123ABCD"}, realTokens, `-channel must be a channel ID such as C0123ABCD`},
		{"no approvers", []string{"-channel", "C0123ABCD"}, realTokens, "pass -approvers U…,S…"},
		{"approvers with spaces", []string{"-channel", "C0123ABCD", "-approvers", "U0123ABCD, S0456EFGH"}, realTokens, "-approvers must be user and user-group IDs"},
		{"approver handle", []string{"-channel", "C0123ABCD", "-approvers", "@alice"}, realTokens, "-approvers must be user and user-group IDs"},
		{"bad escalation", append([]string{"-escalation-approvers", "leads"}, real...), realTokens, "-escalation-approvers must be"},
		{"channel for the stand-in", []string{"-channel", "C0123ABCD"}, nil, "-channel, -approvers and -escalation-approvers are for your Slack workspace"},
		{"approvers for the stand-in", []string{"-approvers", "U0123ABCD"}, nil, "are for your Slack workspace"},
		{"substitute a channel", []string{"-substitute", "Channel=C0123ABCD"}, nil, "-substitute Channel=…: approvals-local fills Channel itself"},
		{"substitute the notifier", []string{"-substitute", "NotifierFunctionArn=mine"}, nil, "-substitute NotifierFunctionArn=…: approvals-local fills NotifierFunctionArn itself, with a function it runs"},
		{"substitute without =", []string{"-substitute", "Mine"}, nil, "want Name=value"},
		{"substitute twice", []string{"-substitute", "A=1", "-substitute", "A=2"}, nil, "A is given twice"},
		{"bad address", []string{"-addr", "8080"}, nil, "-addr must be host:port"},
		{"bad sfn address", []string{"-sfn-addr", "localhost"}, nil, "-sfn-addr must be host:port"},
		{"no data folder", []string{"-data", ""}, nil, "-data must name a folder"},
		{"log level", []string{"-log-level", "loud"}, nil, "-log-level must be debug, info, warn or error"},
		{"fatal log level", []string{"-log-level", "fatal"}, nil, "-log-level must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseProduct(tt.args, tt.env)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("config = %v, want an error saying %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is not one line without tokens: %q", err)
			}
		})
	}
}

// Through run: a bad setting stops before anything starts, and -h is not
// an error.
func TestRunRefusesBadSettings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-approvers", "U0123ABCD"}, "are for your Slack workspace"},
		{[]string{"serve"}, `unexpected arguments ["serve"]`},
		{[]string{"-port", "1"}, "flag provided but not defined: -port"},
	} {
		var stdout, stderr strings.Builder
		err := run(t.Context(), tt.args, func(string) string { return "" }, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tt.want) || stdout.Len() != 0 {
			t.Errorf("run %q = %v (stdout %q), want %q", tt.args, err, stdout.String(), tt.want)
		}
	}
	var stdout, stderr strings.Builder
	if err := run(t.Context(), []string{"-h"}, func(string) string { return "" }, &stdout, &stderr); err != nil {
		t.Errorf("-h = %v", err)
	}
	for _, want := range []string{"SLACK_BOT_TOKEN", "-addr", "-sfn-addr", "-data", "-definitions", "-channel", "-demo", "-load"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the usage lacks %s:\n%s", want, stderr.String())
		}
	}
}
