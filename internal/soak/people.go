package soak

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// How the run's people behave.
const (
	// thinkMin and thinkMax bound the pause before somebody tries again.
	thinkMin, thinkMax = 500 * time.Millisecond, 2 * time.Second
	// patience is how long somebody waits for an answer after Slack took
	// their click (acked it) before they stop watching. They do not click
	// again: an acknowledged click must not need it.
	patience = 20 * time.Second
	// tries bounds how often somebody clicks again when Slack showed an
	// error or the bot asked them to.
	tries = 6
)

// reaction is what somebody saw after a click or submission.
type reaction int

const (
	sawNothing reaction = iota // nothing within patience
	sawModal                   // the form they asked for opened
	sawRetry                   // an error, or the bot asking them to try again
	sawDone                    // the outcome, or an answer that needs nothing more
)

// act plays it's people, as its kind says.
func (r *run) act(ctx context.Context, it *item) {
	w := it.who
	switch it.kind {
	case kindApprove, kindDeadline:
		r.decide(ctx, it, w.approver, blocks.ActionApprove, -1)
	case kindReject:
		r.viaModal(ctx, it, w.member, blocks.ActionReject, blocks.CallbackReject, map[string]map[string]any{
			"reason": {"reason": map[string]any{"type": "plain_text_input", "value": it.reason}},
		})
	case kindRevise:
		r.viaModal(ctx, it, w.approver, blocks.ActionRevise, blocks.CallbackRevise, map[string]map[string]any{
			"preset":   {"preset": map[string]any{"type": "radio_buttons", "selected_option": map[string]any{"value": "Shorter"}}},
			"feedback": {"feedback": map[string]any{"type": "plain_text_input", "value": it.reason}},
		})
	case kindQuorum:
		var wg sync.WaitGroup
		wg.Go(func() { r.decide(ctx, it, w.approver, blocks.ActionApprove, -1) })
		wg.Go(func() {
			if r.pause(ctx, r.people.between(0, 3*time.Second)) {
				r.decide(ctx, it, w.member, blocks.ActionApprove, -1)
			}
		})
		wg.Wait()
	case kindHandOver:
		r.viaModal(ctx, it, w.approver, blocks.ActionDelegate, blocks.CallbackDelegate, map[string]map[string]any{
			"delegate": {"delegate": map[string]any{"type": "users_select", "selected_user": w.delegate}},
		})
		// Whatever the delegator saw, the delegate acts once the thread,
		// the message or their App Home shows them the request.
		if r.handedTo(ctx, it) && r.pause(ctx, r.people.between(thinkMin, thinkMax)) {
			r.decide(ctx, it, w.delegate, blocks.ActionApprove, -1)
		}
	case kindDouble:
		second, action := w.approver, blocks.ActionApprove
		if it.variant == "two" {
			second, action = w.member, blocks.ActionSkip
		}
		var wg sync.WaitGroup
		wg.Go(func() { r.decide(ctx, it, w.approver, blocks.ActionApprove, 0) })
		wg.Go(func() { r.decide(ctx, it, second, action, 1) })
		wg.Wait()
	}
}

// decide clicks a button that decides (or votes), and again while Slack
// shows an error or the bot asks for it.
func (r *run) decide(ctx context.Context, it *item, user, action string, via int) {
	for range tries {
		if r.final(it) {
			return
		}
		a := r.click(ctx, it, user, action, via)
		if !a.acked {
			if !r.pause(ctx, r.people.between(thinkMin, thinkMax)) {
				return
			}
			continue
		}
		seen, _ := r.await(ctx, it, user, a, "")
		switch seen {
		case sawRetry:
			if !r.pause(ctx, r.people.between(thinkMin, thinkMax)) {
				return
			}
		default:
			return
		}
	}
}

// viaModal clicks a button that opens a form, fills it in and submits it,
// as a person does: again when Slack shows an error, the form does not
// open, or the bot asks for it. It reports whether the submission was
// answered as done.
func (r *run) viaModal(ctx context.Context, it *item, user, action, callback string, values map[string]map[string]any) bool {
	for range tries {
		if r.final(it) {
			return false
		}
		a := r.click(ctx, it, user, action, -1)
		if !a.acked {
			if !r.pause(ctx, r.people.between(thinkMin, thinkMax)) {
				return false
			}
			continue
		}
		seen, view := r.await(ctx, it, user, a, callback)
		switch seen {
		case sawDone:
			return false // the request was decided meanwhile
		case sawNothing:
			// The form never opened: Slack's trigger lasts 3 s, so the
			// person clicks again.
			r.modalsLost.Add(1)
			if !r.pause(ctx, r.people.between(thinkMin, thinkMax)) {
				return false
			}
			continue
		case sawRetry:
			if !r.pause(ctx, r.people.between(thinkMin, thinkMax)) {
				return false
			}
			continue
		}
		switch r.submit(ctx, it, user, view, values) {
		case sawDone:
			return true
		case sawNothing:
			return false
		}
		if !r.pause(ctx, r.people.between(thinkMin, thinkMax)) {
			return false
		}
	}
	return false
}

// submit submits the open form, again while Slack shows an error on it,
// and returns what the person saw: sawRetry means they should click the
// button again.
func (r *run) submit(ctx context.Context, it *item, user string, view fakeslack.View, values map[string]map[string]any) reaction {
	for range tries {
		a := newAct(user, "submit "+view.CallbackID, -1)
		it.record(a)
		id, err := r.slack.Submit(user, view.ID, values)
		a.set(func(a *deed) { a.envelope = id })
		if err != nil {
			a.set(func(a *deed) { a.result = "not submitted: " + err.Error() })
			return sawRetry
		}
		ack, err := r.slack.WaitHandled(ctx, id)
		if err != nil {
			a.set(func(a *deed) { a.result = "not acked: Slack showed an error in the form" })
			if !r.viewOpen(user, view.ID) {
				return sawRetry
			}
			if !r.pause(ctx, r.people.between(thinkMin, thinkMax)) {
				return sawNothing
			}
			continue
		}
		a.set(func(a *deed) {
			a.acked, a.result = true, fmt.Sprintf("acked in %s", ack.Latency.Round(time.Millisecond))
		})
		if strings.Contains(string(ack.Payload), `"errors"`) {
			a.set(func(a *deed) { a.answer, a.answered = "the form showed errors: "+string(ack.Payload), true })
			// The form stays open with its errors; one that asks to try
			// again (Slack could not check something) is submitted again.
			if strings.Contains(string(ack.Payload), "again") && r.pause(ctx, r.people.between(thinkMin, thinkMax)) {
				continue
			}
			return sawNothing
		}
		seen, _ := r.await(ctx, it, user, a, "")
		return seen
	}
	return sawNothing
}

// click clicks action on it's message, through socket via (-1: Slack's
// pick), and waits for Slack's verdict: acked, or the error a person sees.
func (r *run) click(ctx context.Context, it *item, user, action string, via int) *act {
	a := newAct(user, "click "+action, via)
	it.record(a)
	var id string
	var err error
	p := it.pending.Response
	if via < 0 {
		id, err = r.slack.Click(user, p.Channel, p.TS, action, p.ApprovalID)
	} else {
		id, err = r.slack.ClickVia(via, user, p.Channel, p.TS, action, p.ApprovalID)
	}
	a.set(func(a *deed) { a.envelope = id })
	switch {
	case errors.Is(err, fakeslack.ErrNoConnection):
		a.set(func(a *deed) { a.result = "no socket was open: Slack showed an error" })
		return a
	case err != nil:
		a.set(func(a *deed) { a.result = "could not click: " + err.Error() })
		return a
	}
	ack, err := r.slack.WaitHandled(ctx, id)
	if err != nil {
		a.set(func(a *deed) { a.result = "not acked in time: Slack showed an error" })
		return a
	}
	a.set(func(a *deed) {
		a.acked, a.result = true, fmt.Sprintf("acked in %s", ack.Latency.Round(time.Millisecond))
	})
	return a
}

// await watches what user sees after a: a private answer from the bot,
// the form callback (when not ""), or the request's outcome on its
// message, for up to patience.
func (r *run) await(ctx context.Context, it *item, user string, a *act, callback string) (reaction, fakeslack.View) {
	ctx, cancel := context.WithTimeout(ctx, patience)
	defer cancel()
	since := fakeslackTS(a.at)
	var seen reaction
	var view fakeslack.View
	var text string
	_ = r.slack.WaitFor(ctx, func() bool {
		for _, m := range r.slack.Ephemerals(user) {
			if m.Channel != it.channel || m.TS < since {
				continue
			}
			text = m.Text
			seen = sawDone
			if strings.Contains(m.Text, "again") {
				seen = sawRetry
			}
			return true
		}
		if callback != "" {
			for _, v := range r.slack.Views(user) {
				if v.CallbackID == callback && !v.Closed && !it.seenView(v.ID) {
					view, seen, text = v, sawModal, "the form opened"
					return true
				}
			}
		}
		if r.final(it) {
			seen, text = sawDone, "the message shows the outcome"
			return true
		}
		return false
	})
	if seen == sawNothing {
		text = fmt.Sprintf("nothing within %s", patience)
	}
	a.set(func(a *deed) { a.answer, a.answered = text, seen != sawNothing })
	return seen, view
}

// seenView reports whether the form was seen before, and marks it seen.
func (it *item) seenView(id string) bool {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.views == nil {
		it.views = map[string]bool{}
	}
	seen := it.views[id]
	it.views[id] = true
	return seen
}

// fakeslackTS is the message timestamp the fake gives a message posted at
// t (its clock is the real one), for comparisons.
func fakeslackTS(t time.Time) string {
	us := t.UnixMicro()
	return fmt.Sprintf("%d.%06d", us/1e6, us%1e6)
}

func (r *run) viewOpen(user, id string) bool {
	for _, v := range r.slack.Views(user) {
		if v.ID == id {
			return !v.Closed
		}
	}
	return false
}

// final reports whether it's message shows no button any more.
func (r *run) final(it *item) bool {
	m, ok := r.slack.Message(it.pending.Response.Channel, it.pending.Response.TS)
	return ok && len(fakeslack.ButtonActions(m.Blocks)) == 0
}

// delegatePatience is how long a delegate may take to notice a hand-over.
const delegatePatience = 3 * patience

// handedTo waits until the delegate can learn of the hand-over: a note in
// the request's thread or the message mentions them, or their App Home
// lists the request.
func (r *run) handedTo(ctx context.Context, it *item) bool {
	ctx, cancel := context.WithTimeout(ctx, delegatePatience)
	defer cancel()
	mention := "<@" + it.who.delegate + ">"
	p := it.pending.Response
	err := r.slack.WaitFor(ctx, func() bool {
		for _, m := range r.slack.Replies(p.Channel, p.TS) {
			if strings.Contains(m.Text, mention) {
				return true
			}
		}
		if home, ok := r.slack.Home(it.who.delegate); ok && strings.Contains(string(home.View), p.ApprovalID) {
			return true
		}
		m, _ := r.slack.Message(p.Channel, p.TS)
		return strings.Contains(string(m.Blocks), "handed this request to "+mention)
	})
	if err != nil {
		it.mu.Lock()
		it.givenUp = fmt.Sprintf("the delegate saw no hand-over within %s: no note in the thread, not on the message, not on their App Home", delegatePatience)
		it.mu.Unlock()
	}
	return err == nil
}

// pause waits d, or until ctx ends (false).
func (r *run) pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// homeOpen is somebody opening their App Home: Slack sends the app an
// app_home_opened event, redelivered when not acked.
type homeOpen struct {
	viewer    string
	at        time.Duration // from the start of the click phase
	envelopes []string
	published bool
}

// openHome opens the viewer's App Home, and again when nothing shows.
func (r *run) openHome(ctx context.Context, h *homeOpen) {
	for range 3 {
		id, err := r.slack.OpenHome(h.viewer, "home")
		if err == nil {
			r.mu.Lock()
			h.envelopes = append(h.envelopes, id)
			r.mu.Unlock()
		}
		wait, cancel := context.WithTimeout(ctx, patience)
		err = r.slack.WaitFor(wait, func() bool { _, ok := r.slack.Home(h.viewer); return ok })
		cancel()
		if err == nil {
			r.mu.Lock()
			h.published = true
			r.mu.Unlock()
			return
		}
		r.homesReopened.Add(1)
		if ctx.Err() != nil {
			return
		}
	}
}
