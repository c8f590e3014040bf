package workflow

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxRecordedTextBytes bounds each draft and each decided text that an
// audit record holds in full (UTF-8 bytes): a longer one is recorded as
// its SHA-256 and length only. Every recorded text carries its SHA-256 and
// length, so a text kept elsewhere can be checked against the record.
const MaxRecordedTextBytes = 4096

// DecisionRecord is what a person saw when they decided, and what they
// decided: the request as shown (title, summary, fields, drafts) and the
// text approved (the chosen draft, or the draft as they edited it). The
// comment, reason or feedback are the event's Comment and Preset.
type DecisionRecord struct {
	Title   string        `json:"title"`
	Summary string        `json:"summary,omitempty"`
	Fields  []RecordField `json:"fields,omitempty"`
	Drafts  []RecordText  `json:"drafts,omitempty"`
	// Decided is the text approved: the chosen draft or, when Edited, the
	// draft as the person edited it; nil for an approval without drafts
	// and for every other decision.
	Decided *RecordText `json:"decided,omitempty"`
	// Feedback is a change request's feedback as the workflow received
	// it (the preset, then the free text).
	Feedback string `json:"feedback,omitempty"`
}

// RecordField is a field of the request as shown.
type RecordField struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// RecordText is a text as recorded: in full up to MaxRecordedTextBytes,
// always with its SHA-256 (hex, of its UTF-8 bytes) and its length in
// characters.
type RecordText struct {
	Text   string `json:"text,omitempty"`
	SHA256 string `json:"sha256"`
	Length int    `json:"length"`
	// Omitted: the text was longer than MaxRecordedTextBytes and is left
	// out.
	Omitted bool `json:"omitted,omitempty"`
}

// RecordOf returns s as recorded.
func RecordOf(s string) RecordText {
	sum := sha256.Sum256([]byte(s))
	t := RecordText{SHA256: hex.EncodeToString(sum[:]), Length: utf8.RuneCountInString(s)}
	if len(s) <= MaxRecordedTextBytes {
		t.Text = s
	} else {
		t.Omitted = true
	}
	return t
}

func (r DecisionRecord) clone() DecisionRecord {
	r.Fields = slices.Clone(r.Fields)
	r.Drafts = slices.Clone(r.Drafts)
	if r.Decided != nil {
		d := *r.Decided
		r.Decided = &d
	}
	return r
}

// WithRecords returns events with the decision record of a added to each
// decision event (voted, decided) that has none; the others as they are.
// The request's text never changes, and a person's vote and the decision
// stay as recorded, so the record is the same whenever it is written.
func WithRecords(a Approval, events []AuditEvent) []AuditEvent {
	out := make([]AuditEvent, len(events))
	for i, e := range events {
		if e.Record == nil && (e.Type == EventVoted || e.Type == EventDecided) {
			r := a.shown()
			r.Decided, r.Feedback = a.decidedBy(e)
			e.Record = &r
		}
		out[i] = e
	}
	return out
}

// shown is the request as people saw it.
func (a Approval) shown() DecisionRecord {
	r := DecisionRecord{Title: a.Title, Summary: a.Summary}
	for _, f := range a.Fields {
		r.Fields = append(r.Fields, RecordField(f))
	}
	for _, d := range a.Drafts {
		r.Drafts = append(r.Drafts, RecordOf(d))
	}
	return r
}

// decidedBy is the text the decision event e approved, and its feedback
// for a change request.
func (a Approval) decidedBy(e AuditEvent) (*RecordText, string) {
	if e.Action == ActionRevise {
		return nil, strings.TrimSpace(Decision{Preset: e.Preset, Text: e.Comment}.Feedback())
	}
	if e.Action != ActionApprove || e.DraftIndex == nil || *e.DraftIndex < 0 || *e.DraftIndex >= len(a.Drafts) {
		return nil, ""
	}
	text := a.Drafts[*e.DraftIndex]
	if e.Edited {
		if i := slices.IndexFunc(a.Votes, func(v Vote) bool { return v.UserID == e.Actor }); i >= 0 && a.Votes[i].Edited != "" {
			text = a.Votes[i].Edited
		} else if a.Decision != nil && a.Decision.DecidedBy == e.Actor && a.Decision.Edited != "" {
			text = a.Decision.Edited
		}
	}
	t := RecordOf(text)
	return &t, ""
}
