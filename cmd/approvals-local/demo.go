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
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow/stepfunctions/stepfunctionstest"
)

// demo plays a morning of approvals against a running stack, as the people
// in it would, and narrates what happens.
type demo struct {
	stack *devstack.Stack
	out   io.Writer
	step  int
}

func (d *demo) say(format string, args ...any) {
	d.step++
	fmt.Fprintf(d.out, "\n%d. %s\n", d.step, fmt.Sprintf(format, args...))
}

func (d *demo) play(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	d.say("The drafting agent's execution reaches its approval Task; the notifier posts to #publish:")
	post, err := d.stack.Request(ctx, "publish-2026-11-30", map[string]any{
		"channel":         channel,
		"approvers":       []string{alice, editors},
		"requestedBy":     bob,
		"title":           "Publish the post for 2026-11-30",
		"summary":         "The agent wrote two drafts about *Step Functions callbacks*.",
		"fields":          json.RawMessage(`{"Theme": "Step Functions", "Audience": "Engineers"}`),
		"drafts":          []string{"Callbacks let a workflow wait for people.", "Pause any workflow until a person says yes."},
		"revisionPresets": []string{"For non-engineers", "More detail", "Shorter"},
		"allowSkip":       true,
		"timeoutSeconds":  86400,
	})
	if err != nil {
		return fmt.Errorf("request: %w", err)
	}
	d.show(post)

	d.say("Bob, who asked for it, clicks \"Approve draft 1\"; Mallory, who is not an approver, tries too:")
	for _, who := range []string{bob, mallory} {
		if err := d.click(ctx, who, post, "Approve draft 1"); err != nil {
			return err
		}
		if err := d.showEphemeral(ctx, who); err != nil {
			return err
		}
	}
	fmt.Fprintf(d.out, "   The execution is still waiting: task %s.\n", d.stack.SFN.Outcome(post.Token).State)

	d.say("Carol (in @editors) double-clicks \"Approve draft 2\"; the two clicks may land on different replicas:")
	for range 2 {
		if err := d.click(ctx, carol, post, "Approve draft 2"); err != nil {
			return err
		}
	}
	if err := d.resumed(ctx, post); err != nil {
		return err
	}
	if err := d.settled(ctx, post); err != nil {
		return err
	}

	d.say("A second request: Alice rejects it, giving a reason in the modal:")
	reject, err := d.stack.Request(ctx, "certificate-batch-7", map[string]any{
		"channel": channel, "approvers": []string{alice}, "title": "Issue 12 certificates for batch 7",
		"summary": "12 names checked against the roster; 1 name has a typo.",
	})
	if err != nil {
		return err
	}
	if err := d.modal(ctx, alice, reject, "Reject", "reject", map[string]map[string]any{
		"reason": {"reason": map[string]any{"type": "plain_text_input", "value": "Fix the typo in row 4 first."}},
	}); err != nil {
		return err
	}
	if err := d.resumed(ctx, reject); err != nil {
		return err
	}
	if err := d.settled(ctx, reject); err != nil {
		return err
	}

	d.say("A third: Alice asks for changes with a preset and a note:")
	revise, err := d.stack.Request(ctx, "reply-to-customer-42", map[string]any{
		"channel": channel, "approvers": []string{alice}, "title": "Reply to ticket #42",
		"drafts": []string{"Thanks for the report; a fix ships Monday."}, "revisionPresets": []string{"Warmer", "Shorter"},
	})
	if err != nil {
		return err
	}
	if err := d.modal(ctx, alice, revise, "Other changes…", "revise", map[string]map[string]any{
		"preset":   {"preset": map[string]any{"type": "radio_buttons", "selected_option": map[string]any{"value": "Warmer"}}},
		"feedback": {"feedback": map[string]any{"type": "plain_text_input", "value": "Thank them by name."}},
	}); err != nil {
		return err
	}
	if err := d.resumed(ctx, revise); err != nil {
		return err
	}

	d.say("A fourth waits in Step Functions until its Task times out; then Carol clicks:")
	late, err := d.stack.Request(ctx, "retry-failed-items", map[string]any{
		"channel": channel, "approvers": []string{editors}, "title": "Retry 3 failed items of the nightly batch?",
		"timeoutSeconds": 3600,
	})
	if err != nil {
		return err
	}
	d.stack.SFN.TimeOut(late.Token)
	fmt.Fprintln(d.out, "   (Step Functions: States.Timeout)")
	if err := d.click(ctx, carol, late, "Approve"); err != nil {
		return err
	}
	if err := d.settledWithoutReply(ctx, late); err != nil {
		return err
	}

	d.say("One more request arrives, and Carol types /approvals pending:")
	if _, err := d.stack.Request(ctx, "publish-2026-12-01", map[string]any{
		"channel": channel, "approvers": []string{editors}, "title": "Publish the post for 2026-12-01",
	}); err != nil {
		return err
	}
	if err := d.pending(ctx, carol); err != nil {
		return err
	}

	return d.summary([]devstack.Pending{post, reject, revise, late})
}

// summary counts what the executions received and checks that no task
// token reached Slack.
func (d *demo) summary(all []devstack.Pending) error {
	states := map[string]int{}
	for _, p := range all {
		states[d.stack.SFN.Outcome(p.Token).State]++
	}
	var seen strings.Builder
	for _, m := range d.stack.Slack.Messages(channel) {
		seen.WriteString(m.Text)
		seen.Write(m.Blocks)
	}
	for _, u := range []string{alice, bob, carol, mallory} {
		for _, m := range d.stack.Slack.Ephemerals(u) {
			seen.WriteString(m.Text)
			seen.Write(m.Blocks)
		}
		for _, v := range d.stack.Slack.Views(u) {
			seen.Write(v.View)
		}
	}
	for _, p := range all {
		if strings.Contains(seen.String(), p.Token) {
			return fmt.Errorf("a task token reached Slack")
		}
	}
	fmt.Fprintf(d.out, "\nDone: %d executions resumed with SendTaskSuccess, %d with SendTaskFailure, %d timed out; %d resumes in all (one per decision); no task token in anything Slack holds.\n",
		states[stepfunctionstest.StateSucceeded], states[stepfunctionstest.StateFailed], states[stepfunctionstest.StateTimedOut], d.stack.SFN.Successes()+states[stepfunctionstest.StateFailed])
	return nil
}

// show prints the request message as a person would read it.
func (d *demo) show(p devstack.Pending) {
	m, _ := d.stack.Slack.Message(p.Response.Channel, p.Response.TS)
	fmt.Fprintf(d.out, "   #publish · approval %s · message %s\n", p.Response.ApprovalID, p.Response.TS)
	render(d.out, "   │ ", m.Blocks, m.Text, names)
}

func (d *demo) click(ctx context.Context, user string, p devstack.Pending, label string) error {
	m, _ := d.stack.Slack.Message(p.Response.Channel, p.Response.TS)
	for _, b := range fakeslack.ButtonActions(m.Blocks) {
		if b.Text == label {
			id, err := d.stack.Slack.Click(user, p.Response.Channel, p.Response.TS, b.ActionID, b.Value)
			if err != nil {
				return fmt.Errorf("%s clicks %q: %w", names[user], label, err)
			}
			ack, err := d.stack.Slack.WaitAck(ctx, id)
			if err != nil {
				return fmt.Errorf("ack of %s's click: %w", names[user], err)
			}
			fmt.Fprintf(d.out, "   %s clicks [%s] → acked in %s\n", names[user], label, ack.Latency.Round(100*time.Microsecond))
			return nil
		}
	}
	for _, o := range fakeslack.MenuOptions(m.Blocks) {
		if o.Text == label {
			id, err := d.stack.Slack.Choose(user, p.Response.Channel, p.Response.TS, o.ActionID, o.Value)
			if err != nil {
				return fmt.Errorf("%s picks %q: %w", names[user], label, err)
			}
			ack, err := d.stack.Slack.WaitAck(ctx, id)
			if err != nil {
				return fmt.Errorf("ack of %s's pick: %w", names[user], err)
			}
			fmt.Fprintf(d.out, "   %s picks ⋯ [%s] → acked in %s\n", names[user], label, ack.Latency.Round(100*time.Microsecond))
			return nil
		}
	}
	fmt.Fprintf(d.out, "   %s looks for [%s], but the message has no such button any more.\n", names[user], label)
	return nil
}

func (d *demo) showEphemeral(ctx context.Context, user string) error {
	var text string
	err := d.stack.Slack.WaitFor(ctx, func() bool {
		e := d.stack.Slack.Ephemerals(user)
		if len(e) == 0 {
			return false
		}
		text = e[len(e)-1].Text
		return true
	})
	if err != nil {
		return fmt.Errorf("no private answer for %s: %w", names[user], err)
	}
	fmt.Fprintf(d.out, "   only %s sees: %s\n", names[user], plain(text, names))
	return nil
}

func (d *demo) modal(ctx context.Context, user string, p devstack.Pending, label, callbackID string, values map[string]map[string]any) error {
	if err := d.click(ctx, user, p, label); err != nil {
		return err
	}
	var view fakeslack.View
	err := d.stack.Slack.WaitFor(ctx, func() bool {
		for _, v := range d.stack.Slack.Views(user) {
			if v.CallbackID == callbackID && !v.Closed {
				view = v
				return true
			}
		}
		return false
	})
	if err != nil {
		return fmt.Errorf("no %s modal opened: %w", callbackID, err)
	}
	fmt.Fprintf(d.out, "   a %q modal opens for %s; they submit it\n", callbackID, names[user])
	id, err := d.stack.Slack.Submit(user, view.ID, values)
	if err != nil {
		return err
	}
	_, err = d.stack.Slack.WaitAck(ctx, id)
	return err
}

func (d *demo) resumed(ctx context.Context, p devstack.Pending) error {
	o, err := d.stack.WaitResumed(ctx, p.Token)
	if err != nil {
		return fmt.Errorf("execution not resumed: %w", err)
	}
	switch o.State {
	case stepfunctionstest.StateSucceeded:
		var b bytes.Buffer // in the order the bot wrote the output
		_ = json.Indent(&b, []byte(o.Output), "     ", "  ")
		fmt.Fprintf(d.out, "   → SendTaskSuccess, the execution receives:\n     %s\n", b.String())
	case stepfunctionstest.StateFailed:
		fmt.Fprintf(d.out, "   → SendTaskFailure: error %q, cause %q\n", o.Error, o.Cause)
	default:
		fmt.Fprintf(d.out, "   → task %s\n", o.State)
	}
	return nil
}

// settled waits until the message has lost its buttons and prints it and
// the decision's reply in its thread.
func (d *demo) settled(ctx context.Context, p devstack.Pending) error {
	return d.settle(ctx, p, true)
}

// settledWithoutReply is settled for an expiry, which gets no thread reply.
func (d *demo) settledWithoutReply(ctx context.Context, p devstack.Pending) error {
	return d.settle(ctx, p, false)
}

func (d *demo) settle(ctx context.Context, p devstack.Pending, reply bool) error {
	var m fakeslack.Message
	err := d.stack.Slack.WaitFor(ctx, func() bool {
		m, _ = d.stack.Slack.Message(p.Response.Channel, p.Response.TS)
		return m.Updates > 0 && len(fakeslack.ButtonActions(m.Blocks)) == 0
	})
	if err != nil {
		return fmt.Errorf("message never updated: %w", err)
	}
	fmt.Fprintln(d.out, "   The message is updated in place:")
	render(d.out, "   │ ", m.Blocks, m.Text, names)
	if !reply {
		return nil
	}
	root := m.ThreadTS
	if root == "" {
		root = m.TS
	}
	if err := d.stack.Slack.WaitFor(ctx, func() bool { return len(d.stack.Slack.Replies(p.Response.Channel, root)) > 0 }); err != nil {
		return fmt.Errorf("no reply in the thread: %w", err)
	}
	for _, r := range d.stack.Slack.Replies(p.Response.Channel, root) {
		fmt.Fprintf(d.out, "   └ thread reply: %s\n", plain(r.Text, names))
	}
	return nil
}

func (d *demo) pending(ctx context.Context, user string) error {
	before := len(d.stack.Slack.ResponsePosts())
	id, err := d.stack.Slack.Slash(user, channel, "/approvals", "pending")
	if err != nil {
		return err
	}
	if _, err := d.stack.Slack.WaitAck(ctx, id); err != nil {
		return err
	}
	if err := d.stack.Slack.WaitFor(ctx, func() bool { return len(d.stack.Slack.ResponsePosts()) > before }); err != nil {
		return fmt.Errorf("no answer to /approvals pending: %w", err)
	}
	var body struct {
		Text   string          `json:"text"`
		Blocks json.RawMessage `json:"blocks"`
	}
	_ = json.Unmarshal(d.stack.Slack.ResponsePosts()[before].Body, &body)
	fmt.Fprintf(d.out, "   only %s sees:\n", names[user])
	render(d.out, "   │ ", body.Blocks, body.Text, names)
	return nil
}
