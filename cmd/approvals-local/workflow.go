package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sfnapprovals/approvals/internal/devstack"
	"github.com/sfnapprovals/approvals/lambdas/notifier"
	"github.com/sfnapprovals/approvals/sfnlocal/host"
	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/slackbot"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// playWorkflow runs a shipped state machine on the local Step Functions
// engine: the engine invokes the notifier, a person asks for changes in
// Slack, the agent redrafts, the person approves, the post is published.
func playWorkflow(ctx context.Context, ddbEndpoint string, logs, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	fmt.Fprintf(out, "\n── Act 2: a real state machine, %s, on the local Step Functions engine ──\n", definitions.PublishWithApproval)
	cfg := slackbot.DefaultConfig()
	cfg.SweepInterval = 500 * time.Millisecond
	stack, err := devstack.Start(ctx, devstack.Options{
		DynamoDBEndpoint: ddbEndpoint,
		Replicas:         2,
		Logs:             logs,
		Bot:              cfg,
		Engine:           true,
		Functions: map[string]lambda.Handler{
			"draft-agent": demoDraftAgent,
			"publish": func(context.Context, []byte) ([]byte, error) {
				return []byte(`{"url":"https://blog.example/2026/11/30/callbacks"}`), nil
			},
		},
	})
	if err != nil {
		return err
	}
	defer stack.Close()
	raw, err := definitions.Load(definitions.PublishWithApproval)
	if err != nil {
		return err
	}
	def, err := host.Substitute(raw, map[string]string{
		definitions.Channel: channel, definitions.Approvers: alice,
		// The stack's engine runs the notifier and these functions in
		// process, by name; a deployment substitutes their ARNs.
		definitions.NotifierFunctionArn: devstack.NotifierFunction, definitions.DraftAgentFunctionArn: "draft-agent", definitions.PublishFunctionArn: "publish",
	})
	if err != nil {
		return err
	}
	machine, err := stack.CreateStateMachine(ctx, "publish-with-approval", def)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nDeployed with DefinitionSubstitutions Channel=%s, Approvers=%s: who approves is part of the state machine.\n", channel, alice)
	execution, err := stack.StartExecution(ctx, machine, "post-2026-11-30", map[string]any{
		"topic": "Step Functions callbacks", "requestedBy": bob,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nStartExecution %s\n", execution)

	first, err := waitRequest(ctx, stack, 1)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "The engine ran Draft (the agent) and Approve, which invoked the notifier; Slack shows:")
	render(out, "   │ ", first.Blocks, first.Text, names)

	d := &demo{stack: stack, out: out}
	pending := devstack.Pending{Response: pendingResponse(first)}
	fmt.Fprintln(out, "\nAlice asks for changes:")
	if err := d.modal(ctx, alice, pending, "Other changes…", "revise", map[string]map[string]any{
		"preset":   {"preset": map[string]any{"type": "radio_buttons", "selected_option": map[string]any{"value": "Shorter"}}},
		"feedback": {"feedback": map[string]any{"type": "plain_text_input", "value": "Lead with the benefit."}},
	}); err != nil {
		return err
	}
	second, err := waitRequest(ctx, stack, 2)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "The execution went on: CountRound → RoundsLeft → Revise (the agent got the feedback) → Approve again:")
	render(out, "   │ ", second.Blocks, second.Text, names)

	fmt.Fprintln(out, "\nAlice approves the first new draft:")
	if err := d.click(ctx, alice, devstack.Pending{Response: pendingResponse(second)}, "Approve draft 1"); err != nil {
		return err
	}
	ex, err := stack.WaitExecution(ctx, execution)
	if err != nil {
		return err
	}
	var b bytes.Buffer // json.Indent keeps the members in the order the engine wrote them
	_ = json.Indent(&b, []byte(ex.Output), "   ", "  ")
	fmt.Fprintf(out, "   → execution %s with output:\n   %s\n", ex.Status, b.String())
	events, err := stack.History(ctx, execution)
	if err != nil {
		return err
	}
	var path []string
	for _, e := range events {
		if strings.HasSuffix(e.Type, "StateEntered") {
			raw, _ := json.Marshal(e)
			var v struct {
				Details struct {
					Name string `json:"name"`
				} `json:"stateEnteredEventDetails"`
			}
			_ = json.Unmarshal(raw, &v)
			path = append(path, v.Details.Name)
		}
	}
	fmt.Fprintf(out, "   states visited (%d history events): %s\n", len(events), strings.Join(path, " → "))
	if ex.Status != "SUCCEEDED" {
		return fmt.Errorf("the workflow ended %s: %s %s", ex.Status, ex.Error, ex.Cause)
	}
	return playStopped(ctx, stack, machine, out)
}

// playStopped stops an execution while its request waits: the engine's
// status change event reaches the events handler, which closes the
// request and updates its message.
func playStopped(ctx context.Context, stack *devstack.Stack, machine string, out io.Writer) error {
	fmt.Fprintln(out, "\nAnother post is requested, then its execution is stopped while the request waits:")
	execution, err := stack.StartExecution(ctx, machine, "post-2026-12-01", map[string]any{
		"topic": "Timeouts and heartbeats", "requestedBy": bob,
	})
	if err != nil {
		return err
	}
	request, err := waitRequest(ctx, stack, 3)
	if err != nil {
		return err
	}
	if err := waitRecorded(ctx, stack, pendingResponse(request)); err != nil {
		return err
	}
	if err := stack.StopExecution(ctx, execution, "Cancelled", "The post was dropped from the schedule."); err != nil {
		return err
	}
	fmt.Fprintf(out, "StopExecution %s\n", execution)
	var closed fakeslack.Message
	err = stack.Slack.WaitFor(ctx, func() bool {
		closed, _ = stack.Slack.Message(request.Channel, request.TS)
		return closed.Updates > 0 && len(fakeslack.ButtonActions(closed.Blocks)) == 0
	})
	if err != nil {
		return fmt.Errorf("the stopped execution's request kept its buttons: %w", err)
	}
	fmt.Fprintln(out, "The ABORTED event reached the events Lambda, which closed the request; Slack now shows:")
	render(out, "   │ ", closed.Blocks, closed.Text, names)
	return nil
}

// waitRecorded waits until the notifier has recorded the request's
// message, so the events Lambda knows which message to update.
func waitRecorded(ctx context.Context, stack *devstack.Stack, r notifier.Response) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if a, err := stack.Service.Get(ctx, r.ApprovalID); err == nil && a.MessageTS == r.TS {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the request message was never recorded: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// demoDraftAgent stands in for the user's drafting agent in the demo.
func demoDraftAgent(_ context.Context, payload []byte) ([]byte, error) {
	var in struct {
		Feedback string `json:"feedback"`
	}
	_ = json.Unmarshal(payload, &in)
	if in.Feedback == "" {
		return []byte(`{"drafts":["Step Functions can wait for people: here is how callbacks work.","A deep dive into task tokens, heartbeats and timeouts."],"summary":"Two first drafts."}`), nil
	}
	return []byte(`{"drafts":["Let any workflow wait for a yes from a person.","Approvals in Slack, without a public endpoint."],"summary":"Redrafted: shorter, benefit first."}`), nil
}

// waitRequest waits until the channel holds n request messages (with
// buttons at some point) and returns the n-th.
func waitRequest(ctx context.Context, stack *devstack.Stack, n int) (fakeslack.Message, error) {
	var found fakeslack.Message
	err := stack.Slack.WaitFor(ctx, func() bool {
		seen := 0
		for _, m := range stack.Slack.Messages(channel) {
			if m.ThreadTS == "" || m.ThreadTS == m.TS {
				if len(fakeslack.ButtonActions(m.Blocks)) > 0 || m.Updates > 0 {
					seen++
					if seen == n && len(fakeslack.ButtonActions(m.Blocks)) > 0 {
						found = m
						return true
					}
				}
			}
		}
		return false
	})
	if err != nil {
		return found, fmt.Errorf("approval request %d never reached Slack: %w", n, err)
	}
	return found, nil
}

// pendingResponse locates a request message for the demo's click helpers.
func pendingResponse(m fakeslack.Message) notifier.Response {
	var id string
	for _, b := range fakeslack.ButtonActions(m.Blocks) {
		id = b.Value
	}
	return notifier.Response{ApprovalID: id, Channel: m.Channel, TS: m.TS}
}
