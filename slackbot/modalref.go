package slackbot

import (
	"strconv"
	"strings"

	"github.com/sfnapprovals/approvals/workflow"
)

// modalRef is what a decision modal carries in its private_metadata, which
// Slack returns unchanged with the submission: the approval, where the
// button that opened it was (a request message, whose approval is the only
// one the submission decides, or the clicker's own App Home), and what the
// submission needs. It never holds the task token.
type modalRef struct {
	id string
	on workflow.MessageRef
	// home: the modal was opened from the person's App Home; answers go
	// there.
	home bool
	// draft is the draft an approval modal approves; workflow.NoDraft
	// when the modal asks which (or the request has no drafts).
	draft int
	// need: the comment (approve) or the reason (reject) is required.
	need bool
	// locale is the request's language, for the answers to the
	// submission given before it is read.
	locale string
	// action is what an "are you sure?" modal does once submitted: an
	// action ID of blocks (ActionSkip, a PresetAction).
	action string
}

// String is the private_metadata: "<id>[ <channel> <ts>][ home][ draft=N][ need][ loc=L][ do=A]".
func (m modalRef) String() string {
	parts := []string{m.id}
	if m.on != (workflow.MessageRef{}) {
		parts = append(parts, m.on.Channel, m.on.TS)
	}
	if m.home {
		parts = append(parts, "home")
	}
	if m.draft >= 0 {
		parts = append(parts, "draft="+strconv.Itoa(m.draft))
	}
	if m.need {
		parts = append(parts, "need")
	}
	if m.locale != "" {
		parts = append(parts, "loc="+m.locale)
	}
	if m.action != "" {
		parts = append(parts, "do="+m.action)
	}
	return strings.Join(parts, " ")
}

// readModalRef reads String's format; a bare approval ID (a modal opened
// by an older version) checks no message. Anything else unreadable has no
// ID, so the submission is ignored.
func readModalRef(metadata string) modalRef {
	m := modalRef{draft: workflow.NoDraft}
	parts := strings.Fields(metadata)
	if len(parts) == 0 {
		return modalRef{draft: workflow.NoDraft}
	}
	m.id = parts[0]
	var loc []string
	for _, p := range parts[1:] {
		switch {
		case p == "home":
			m.home = true
		case p == "need":
			m.need = true
		case strings.HasPrefix(p, "loc="):
			m.locale = strings.TrimPrefix(p, "loc=")
		case strings.HasPrefix(p, "do="):
			m.action = strings.TrimPrefix(p, "do=")
		case strings.HasPrefix(p, "draft="):
			n, err := strconv.Atoi(strings.TrimPrefix(p, "draft="))
			if err != nil || n < 0 || n >= workflow.MaxDrafts {
				return modalRef{draft: workflow.NoDraft}
			}
			m.draft = n
		default:
			loc = append(loc, p)
		}
	}
	switch len(loc) {
	case 0:
	case 2:
		m.on = workflow.MessageRef{Channel: loc[0], TS: loc[1]}
	default:
		return modalRef{draft: workflow.NoDraft}
	}
	return m
}
