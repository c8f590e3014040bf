package workflow

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on a request. They keep the request message and its modals within
// what Slack renders (Block Kit limits), so a valid request always posts.
const (
	MaxTokenLen       = 2048
	MaxTitleLen       = 150 // header block text
	MaxSummaryLen     = 3000
	MaxFields         = 10 // section fields
	MaxFieldLabelLen  = 100
	MaxFieldValueLen  = 1900
	MaxDrafts         = 5
	MaxDraftLen       = 2900
	MaxTotalTextLen   = 12000 // Slack refuses messages of about 13k characters of blocks
	MaxPresets        = 10    // options in a modal choice
	MaxPresetLen      = 75
	MaxApprovers      = 50
	MaxStateNameLen   = 80
	MaxExecutionARN   = 256      // the Step Functions API's bound on an executionArn
	MaxTimeoutSeconds = 99999999 // AWS's upper bound for TimeoutSeconds
)

// IsUserID reports whether s looks like a Slack user ID (U… or W…).
func IsUserID(s string) bool { return isSlackID(s, "UW") }

// IsGroupID reports whether s looks like a Slack user-group ID (S…).
func IsGroupID(s string) bool { return isSlackID(s, "S") }

// isChannelID reports whether s looks like a Slack channel ID (C…, G… or D…).
func isChannelID(s string) bool { return isSlackID(s, "CGD") }

// isSlackID reports whether s is one of the letters in first, then 2 to 20
// of A-Z and 0-9. (Plain loops rather than regular expressions: a counted
// repetition compiles into a program of that many copies, kept in memory
// by every process that links this package.)
func isSlackID(s, first string) bool {
	if len(s) < 3 || len(s) > 21 || strings.IndexByte(first, s[0]) < 0 {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// isTS reports whether s looks like a Slack message timestamp: 1 to 12
// digits, a dot, 1 to 8 digits.
func isTS(s string) bool {
	sec, frac, ok := strings.Cut(s, ".")
	return ok && isDigits(sec, 12) && isDigits(frac, 8)
}

// isDigits reports whether s is 1 to most ASCII digits.
func isDigits(s string, most int) bool {
	if len(s) == 0 || len(s) > most {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Request is the notifier's input: the Task's Payload (see docs/contract.md,
// "Notifier input").
type Request struct {
	TaskToken       TaskToken `json:"taskToken"`
	ExecutionARN    string    `json:"executionArn"`
	StateName       string    `json:"stateName"`
	Channel         string    `json:"channel"`
	ThreadTS        string    `json:"threadTs"`
	Approvers       []string  `json:"approvers"`
	RequestedBy     string    `json:"requestedBy"`
	Title           string    `json:"title"`
	Summary         string    `json:"summary"`
	Fields          Fields    `json:"fields"`
	Drafts          []string  `json:"drafts"`
	RevisionPresets []string  `json:"revisionPresets"`
	AllowSkip       bool      `json:"allowSkip"`
	TimeoutSeconds  int64     `json:"timeoutSeconds"`

	// The policy (see Policy); nil and empty mean "not given".
	Quorum            *int64   `json:"quorum"`
	AllowSelfApproval bool     `json:"allowSelfApproval"`
	RequireComment    []string `json:"requireComment"`
	AllowDelegation   *bool    `json:"allowDelegation"`
	// Reminders nil takes DefaultReminders when there is a deadline; an
	// empty list turns reminders off.
	Reminders        []string `json:"reminders"`
	EscalateTo       []string `json:"escalateTo"`
	EscalateAfter    string   `json:"escalateAfter"`
	OnDeadline       string   `json:"onDeadline"`
	HeartbeatSeconds *int64   `json:"heartbeatSeconds"`

	// The people's side (see request_people.go).
	AllowEdit       bool     `json:"allowEdit"`
	NotifyRequester *bool    `json:"notifyRequester"`
	Confirm         []string `json:"confirm"`
	Locale          string   `json:"locale"`
}

// ParseRequest decodes and validates a notifier payload: one JSON object
// whose keys are spelt exactly as in Request's documentation, each given
// once, so a misspelt, wrongly cased or repeated key is an error rather
// than a silently ignored or replaced setting. Every failure is an *Error
// with code EINVALID whose message names the key, never a value.
func ParseRequest(payload []byte) (Request, error) {
	r, err := decodeRequest(payload)
	if err != nil {
		return Request{}, err
	}
	if err := r.Validate(); err != nil {
		return Request{}, err
	}
	return r, nil
}

// Validate checks every field against the contract and Slack's limits. It
// returns an *Error with code EINVALID naming the first problem found.
func (r Request) Validate() error {
	if err := r.validateIdentity(); err != nil {
		return err
	}
	if err := r.validateSlackIDs(); err != nil {
		return err
	}
	if err := r.validateContent(); err != nil {
		return err
	}
	if r.TimeoutSeconds < 0 || r.TimeoutSeconds > MaxTimeoutSeconds {
		return Errorf(EINVALID, "timeoutSeconds must be between 0 and %d", MaxTimeoutSeconds)
	}
	if n := r.textLen(); n > MaxTotalTextLen {
		return Errorf(EINVALID, "title, summary, fields and drafts add up to %d characters; Slack shows at most %d in one message", n, MaxTotalTextLen)
	}
	if err := r.validatePolicy(); err != nil {
		return err
	}
	return r.validatePeople()
}

// validateIdentity checks what ties the request to its paused task: the
// token, the execution and the state. Their messages never quote the
// token or the ARN.
func (r Request) validateIdentity() error {
	token := r.TaskToken.Reveal()
	switch {
	case token == "":
		return Errorf(EINVALID, "taskToken is required: %s", resolveHint("taskToken"))
	case tokenUnresolved(token):
		return Errorf(EINVALID, "taskToken is not a task token but an unresolved path or expression (or text with spaces): %s", resolveHint("taskToken"))
	case len(token) > MaxTokenLen:
		return Errorf(EINVALID, "taskToken is longer than %d characters", MaxTokenLen)
	case r.ExecutionARN == "":
		return Errorf(EINVALID, "executionArn is required, so that the bot can tell a resume that landed from a task that expired: %s", resolveHint("executionArn"))
	case unresolved(r.ExecutionARN):
		return Errorf(EINVALID, "executionArn is an unresolved path or expression, not an execution ARN: %s", resolveHint("executionArn"))
	case !IsExecutionARN(r.ExecutionARN):
		return executionARNError(r.ExecutionARN)
	case unresolved(r.StateName):
		return unresolvedError("stateName", r.StateName)
	case utf8.RuneCountInString(r.StateName) > MaxStateNameLen:
		return Errorf(EINVALID, "stateName is longer than %d characters", MaxStateNameLen)
	}
	return nil
}

// validateSlackIDs checks the channel, thread, approvers and requester.
func (r Request) validateSlackIDs() error {
	switch {
	case r.Channel == "":
		return Errorf(EINVALID, "channel is required (a channel ID such as C0123ABCD)")
	case unresolved(r.Channel):
		return unresolvedError("channel", r.Channel)
	case !isChannelID(r.Channel) && !IsUserID(r.Channel):
		return Errorf(EINVALID, "channel %s is not a Slack channel ID (C…, G… or D…) nor a user ID (U…/W…, for a direct message); use the ID, not the name", quoteValue(r.Channel))
	case unresolved(r.ThreadTS):
		return unresolvedError("threadTs", r.ThreadTS)
	case r.ThreadTS != "" && !isTS(r.ThreadTS):
		return Errorf(EINVALID, "threadTs %s is not a Slack message timestamp such as 1700000000.000100", quoteValue(r.ThreadTS))
	case len(r.Approvers) == 0:
		return Errorf(EINVALID, "approvers is required: at least one user ID (U…/W…) or user-group ID (S…)")
	case len(r.Approvers) > MaxApprovers:
		return Errorf(EINVALID, "approvers has %d entries; at most %d are allowed", len(r.Approvers), MaxApprovers)
	case unresolved(r.RequestedBy):
		return unresolvedError("requestedBy", r.RequestedBy)
	case r.RequestedBy != "" && !IsUserID(r.RequestedBy):
		return Errorf(EINVALID, "requestedBy %s is not a Slack user ID (U… or W…)", quoteValue(r.RequestedBy))
	}
	for _, a := range r.Approvers {
		if unresolved(a) {
			return unresolvedError("approvers", a)
		}
		if !IsUserID(a) && !IsGroupID(a) {
			return Errorf(EINVALID, "approver %s is neither a user ID (U…/W…) nor a user-group ID (S…)", quoteValue(a))
		}
	}
	return nil
}

// validateContent checks the free text: title, summary, fields, drafts
// and presets. Free text may hold anything, "$" included.
func (r Request) validateContent() error {
	switch {
	case strings.TrimSpace(r.Title) == "":
		return Errorf(EINVALID, "title is required")
	case utf8.RuneCountInString(r.Title) > MaxTitleLen:
		return Errorf(EINVALID, "title is longer than %d characters", MaxTitleLen)
	case utf8.RuneCountInString(r.Summary) > MaxSummaryLen:
		return Errorf(EINVALID, "summary is longer than %d characters", MaxSummaryLen)
	case len(r.Fields) > MaxFields:
		return Errorf(EINVALID, "fields has %d entries; Slack shows at most %d", len(r.Fields), MaxFields)
	case len(r.Drafts) > MaxDrafts:
		return Errorf(EINVALID, "drafts has %d entries; at most %d can be offered", len(r.Drafts), MaxDrafts)
	case len(r.RevisionPresets) > MaxPresets:
		return Errorf(EINVALID, "revisionPresets has %d entries; at most %d can be offered", len(r.RevisionPresets), MaxPresets)
	}
	for _, f := range r.Fields {
		switch {
		case strings.TrimSpace(f.Label) == "":
			return Errorf(EINVALID, "fields has an empty label")
		case utf8.RuneCountInString(f.Label) > MaxFieldLabelLen:
			return Errorf(EINVALID, "field label %q is longer than %d characters", clip(f.Label), MaxFieldLabelLen)
		case utf8.RuneCountInString(f.Value) > MaxFieldValueLen:
			return Errorf(EINVALID, "field %q has a value longer than %d characters", clip(f.Label), MaxFieldValueLen)
		}
	}
	for i, d := range r.Drafts {
		switch {
		case strings.TrimSpace(d) == "":
			return Errorf(EINVALID, "draft %d is empty", i+1)
		case utf8.RuneCountInString(d) > MaxDraftLen:
			return Errorf(EINVALID, "draft %d is longer than %d characters", i+1, MaxDraftLen)
		}
	}
	first := map[string]int{}
	for i, p := range r.RevisionPresets {
		switch {
		case strings.TrimSpace(p) == "":
			return Errorf(EINVALID, "revision preset %d is empty", i+1)
		case utf8.RuneCountInString(p) > MaxPresetLen:
			return Errorf(EINVALID, "revision preset %d is longer than %d characters", i+1, MaxPresetLen)
		}
		key := strings.TrimSpace(p)
		if j, ok := first[key]; ok {
			return Errorf(EINVALID, "revisionPresets repeats %q (presets %d and %d): each preset must be different, as Slack refuses a choice with two equal options", clip(key), j+1, i+1)
		}
		first[key] = i
	}
	return nil
}

func (r Request) textLen() int {
	n := utf8.RuneCountInString(r.Title) + utf8.RuneCountInString(r.Summary)
	for _, f := range r.Fields {
		n += utf8.RuneCountInString(f.Label) + utf8.RuneCountInString(f.Value)
	}
	for _, d := range r.Drafts {
		n += utf8.RuneCountInString(d)
	}
	return n
}

// quoteValue quotes a short ID-like value for an error message; a long
// one is only counted, since it may be a task token in the wrong field.
func quoteValue(s string) string {
	const max = 40
	if n := utf8.RuneCountInString(s); n > max || strings.ContainsFunc(s, unicode.IsControl) {
		return fmt.Sprintf("(a value of %d characters)", n)
	}
	return fmt.Sprintf("%q", s)
}

// clip shortens user input quoted in an error message.
func clip(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "…"
}
