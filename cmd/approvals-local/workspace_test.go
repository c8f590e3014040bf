package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// With both Slack tokens set, the bot and the notifier use that workspace
// (here a fake Slack the test runs, reached through SLACK_API_URL as the
// real one would be through its default URL): no stand-in starts, its
// addresses stay free, and a request posted in the workspace is decided
// there.
func TestRealWorkspaceMode(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	workspace, err := fakeslack.Start(fakeslack.Options{BotToken: "xoxb-real-workspace", AppToken: "xapp-real-workspace", TeamID: "T0REAL"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(workspace.Close)
	env := map[string]string{"SLACK_BOT_TOKEN": workspace.BotToken(), "SLACK_APP_TOKEN": workspace.AppToken(), "SLACK_API_URL": workspace.APIURL()}
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	// The stand-in's addresses are taken: binding them would fail the start.
	page, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	slackLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer slackLn.Close()
	cfg, err := parseProduct([]string{"-data", filepath.Join(t.TempDir(), "data"), "-bot-addr", "127.0.0.1:0", "-sfn-addr", "127.0.0.1:0", "-s3-addr", "127.0.0.1:0",
		"-addr", page.Addr().String(), "-slack-addr", slackLn.Addr().String(), "-channel", "C0REAL", "-approvers", "U0ALICE"}, env)
	if err != nil {
		t.Fatal(err)
	}
	p := startTest(ctx, t, cfg, getenv)
	if p.slack != nil || p.page != nil {
		t.Fatal("a stand-in started beside the workspace")
	}
	banner := p.out.String()
	if !strings.Contains(banner, "your workspace") || !strings.Contains(banner, "requests are posted in C0REAL") || strings.Contains(banner, "Slack stand-in") {
		t.Errorf("the banner does not say to click in the workspace:\n%s", banner)
	}
	if err := workspace.WaitConnections(ctx, 1); err != nil {
		t.Fatalf("the bot did not connect to the workspace: %v", err)
	}
	arn := p.execute(ctx, t, "publish-with-approval", map[string]any{"topic": "Real Slack", "requestedBy": "U0BOB"})
	m := request(ctx, t, workspace, "C0REAL")
	click(ctx, t, workspace, "U0ALICE", m, "Approve draft 1")
	if x := p.ended(ctx, t, arn); x.Status != "SUCCEEDED" {
		t.Errorf("execution ended %s: %s %s", x.Status, x.Error, x.Cause)
	}
	settled(ctx, t, workspace, m)
	for _, secret := range []string{workspace.BotToken(), workspace.AppToken()} {
		if strings.Contains(p.logs(t), secret) || strings.Contains(banner, secret) {
			t.Errorf("a Slack token is in the logs or the banner")
		}
	}
}
