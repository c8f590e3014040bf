package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/sfnapprovals/approvals/internal/syncbuf"
	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// testConfig is the stand-in product with its data in data and every
// address on a free port.
func testConfig(t *testing.T, data string) productConfig {
	t.Helper()
	v := productFlags(flagSet())
	*v.addr, *v.slackAddr, *v.botAddr, *v.sfnAddr, *v.s3Addr, *v.data = "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0", data
	cfg, err := v.config(func(string) string { return "" }, "")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// started is a product under test, with what it said.
type started struct {
	*product
	out *syncbuf.Buffer
}

// startTest starts the product and stops it at the end of the test.
func startTest(ctx context.Context, t *testing.T, cfg productConfig, getenv func(string) string) *started {
	t.Helper()
	out := &syncbuf.Buffer{}
	p, err := startProduct(ctx, cfg, getenv, func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) })
	if err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	t.Cleanup(p.stop)
	p.banner()
	p.watchDefinitions()
	return &started{product: p, out: out}
}

// logs is the product's log file, for failure messages.
func (s *started) logs(t *testing.T) string {
	t.Helper()
	b, _ := os.ReadFile(s.cfg.LogPath)
	return string(b)
}

// execute starts an execution of the named state machine.
func (s *started) execute(ctx context.Context, t *testing.T, machine string, input any) string {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.sfn.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(fmt.Sprintf("arn:aws:states:%s:%s:stateMachine:%s", localRegion, localAccount, machine)),
		Input:           aws.String(string(raw)),
	})
	if err != nil {
		t.Fatalf("StartExecution %s: %v", machine, err)
	}
	return aws.ToString(out.ExecutionArn)
}

// ended waits until the execution ends.
func (s *started) ended(ctx context.Context, t *testing.T, arn string) sfnlocal.Execution {
	t.Helper()
	x, err := s.eng.WaitExecution(ctx, arn)
	if err != nil {
		t.Fatalf("execution %s did not end: %v\n%s", arn, err, s.logs(t))
	}
	return x
}

// request waits for a request message with buttons in ch other than the
// ones in seen, and returns it.
func request(ctx context.Context, t *testing.T, slack *fakeslack.Server, ch string, seen ...fakeslack.Message) fakeslack.Message {
	t.Helper()
	var found fakeslack.Message
	err := slack.WaitFor(ctx, func() bool {
		for _, m := range slack.Messages(ch) {
			known := false
			for _, s := range seen {
				known = known || s.TS == m.TS
			}
			if !known && len(fakeslack.ButtonActions(m.Blocks)) > 0 {
				found = m
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no new request in %s: %v", ch, err)
	}
	return found
}

// button finds the button labelled label.
func button(t *testing.T, m fakeslack.Message, label string) fakeslack.ButtonRef {
	t.Helper()
	for _, b := range fakeslack.ButtonActions(m.Blocks) {
		if b.Text == label {
			return b
		}
	}
	t.Fatalf("message %s has no button %q", m.TS, label)
	return fakeslack.ButtonRef{}
}

// click plays user clicking the button and waits for the bot's ack.
func click(ctx context.Context, t *testing.T, slack *fakeslack.Server, user string, m fakeslack.Message, label string) {
	t.Helper()
	b := button(t, m, label)
	id, err := slack.Click(user, m.Channel, m.TS, b.ActionID, b.Value)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := slack.WaitAck(ctx, id); err != nil {
		t.Fatal(err)
	}
}

// settled waits until the message has no buttons left and returns it.
func settled(ctx context.Context, t *testing.T, slack *fakeslack.Server, m fakeslack.Message) fakeslack.Message {
	t.Helper()
	var got fakeslack.Message
	err := slack.WaitFor(ctx, func() bool {
		got, _ = slack.Message(m.Channel, m.TS)
		return got.Updates > 0 && len(fakeslack.ButtonActions(got.Blocks)) == 0
	})
	if err != nil {
		t.Fatalf("message %s kept its buttons: %v\n%s", m.TS, err, got.Text)
	}
	return got
}

func contains(list []fakeslack.Message, pred func(fakeslack.Message) bool) bool {
	for _, m := range list {
		if pred(m) {
			return true
		}
	}
	return false
}

func hasText(m fakeslack.Message, s string) bool {
	return strings.Contains(m.Text, s) || strings.Contains(string(m.Blocks), s)
}
