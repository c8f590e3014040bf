package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
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
	MaxExecutionARN   = 2048
	MaxTimeoutSeconds = 99999999 // AWS's upper bound for TimeoutSeconds
)

var (
	userIDPattern    = regexp.MustCompile(`^[UW][A-Z0-9]{2,20}$`)
	groupIDPattern   = regexp.MustCompile(`^S[A-Z0-9]{2,20}$`)
	channelIDPattern = regexp.MustCompile(`^[CGD][A-Z0-9]{2,20}$`)
	tsPattern        = regexp.MustCompile(`^[0-9]{1,12}\.[0-9]{1,8}$`)
)

// IsUserID reports whether s looks like a Slack user ID (U… or W…).
func IsUserID(s string) bool { return userIDPattern.MatchString(s) }

// IsGroupID reports whether s looks like a Slack user-group ID (S…).
func IsGroupID(s string) bool { return groupIDPattern.MatchString(s) }

// Request is the notifier's input: the Task's Payload (see README,
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
}

// ParseRequest decodes and validates a notifier payload. Unknown fields are
// refused so a misspelt field name is an error, not a silently ignored
// setting. Every failure is an *Error with code EINVALID.
func ParseRequest(payload []byte) (Request, error) {
	var r Request
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Request{}, Errorf(EINVALID, "approval request is not valid JSON of the expected shape: %s", describeJSONError(err))
	}
	if dec.More() {
		return Request{}, Errorf(EINVALID, "approval request has trailing data after the JSON object")
	}
	if err := r.Validate(); err != nil {
		return Request{}, err
	}
	return r, nil
}

// describeJSONError names the field a decoding error is about without
// echoing values (a value could be a token).
func describeJSONError(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return fmt.Sprintf("field %q must be %s, not %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "json: unknown field ") {
		return "unknown field " + strings.TrimPrefix(msg, "json: unknown field ")
	}
	var fe *fieldsError
	if errors.As(err, &fe) {
		return fe.msg
	}
	return "malformed JSON"
}

func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "bool":
		return "true or false"
	case "int64", "int":
		return "a whole number"
	}
	return "a " + k
}

// Validate checks every field against the contract and Slack's limits. It
// returns an *Error with code EINVALID naming the first problem found.
func (r Request) Validate() error {
	switch {
	case r.TaskToken == "":
		return Errorf(EINVALID, "taskToken is required (pass $$.Task.Token)")
	case len(r.TaskToken) > MaxTokenLen:
		return Errorf(EINVALID, "taskToken is longer than %d characters", MaxTokenLen)
	case r.ExecutionARN != "" && (!strings.HasPrefix(r.ExecutionARN, "arn:") || len(r.ExecutionARN) > MaxExecutionARN):
		return Errorf(EINVALID, "executionArn must be an execution ARN (pass $$.Execution.Id)")
	case utf8.RuneCountInString(r.StateName) > MaxStateNameLen:
		return Errorf(EINVALID, "stateName is longer than %d characters", MaxStateNameLen)
	case r.Channel == "":
		return Errorf(EINVALID, "channel is required (a channel ID such as C0123ABCD)")
	case !channelIDPattern.MatchString(r.Channel):
		return Errorf(EINVALID, "channel %q is not a Slack channel ID (C…, G… or D…); use the ID, not the name", clip(r.Channel))
	case r.ThreadTS != "" && !tsPattern.MatchString(r.ThreadTS):
		return Errorf(EINVALID, "threadTs %q is not a Slack message timestamp such as 1700000000.000100", clip(r.ThreadTS))
	case len(r.Approvers) == 0:
		return Errorf(EINVALID, "approvers is required: at least one user ID (U…/W…) or user-group ID (S…)")
	case len(r.Approvers) > MaxApprovers:
		return Errorf(EINVALID, "approvers has %d entries; at most %d are allowed", len(r.Approvers), MaxApprovers)
	case r.RequestedBy != "" && !IsUserID(r.RequestedBy):
		return Errorf(EINVALID, "requestedBy %q is not a Slack user ID (U… or W…)", clip(r.RequestedBy))
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
	case r.TimeoutSeconds < 0 || r.TimeoutSeconds > MaxTimeoutSeconds:
		return Errorf(EINVALID, "timeoutSeconds must be between 0 and %d", MaxTimeoutSeconds)
	}
	for _, a := range r.Approvers {
		if !IsUserID(a) && !IsGroupID(a) {
			return Errorf(EINVALID, "approver %q is neither a user ID (U…/W…) nor a user-group ID (S…)", clip(a))
		}
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
	for i, p := range r.RevisionPresets {
		switch {
		case strings.TrimSpace(p) == "":
			return Errorf(EINVALID, "revision preset %d is empty", i+1)
		case utf8.RuneCountInString(p) > MaxPresetLen:
			return Errorf(EINVALID, "revision preset %d is longer than %d characters", i+1, MaxPresetLen)
		}
	}
	if n := r.textLen(); n > MaxTotalTextLen {
		return Errorf(EINVALID, "title, summary, fields and drafts add up to %d characters; Slack shows at most %d in one message", n, MaxTotalTextLen)
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

// clip shortens user input quoted in an error message.
func clip(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "…"
}

// fieldsError is a malformed "fields" object; its text quotes at most a
// clipped label, never a value.
type fieldsError struct{ msg string }

func (e *fieldsError) Error() string { return e.msg }

func fieldsErrorf(format string, args ...any) error {
	return &fieldsError{msg: fmt.Sprintf(format, args...)}
}

// Fields is an ordered list of label/value pairs. In JSON it is an object
// whose key order is kept, because people read fields in the order given.
type Fields []Field

// UnmarshalJSON reads a JSON object of string values, keeping key order.
func (f *Fields) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		*f = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return fieldsErrorf("fields must be an object of label: value strings")
	}
	var out Fields
	seen := map[string]bool{}
	for dec.More() {
		keyTok, err := dec.Token()
		if err != nil {
			return fieldsErrorf("fields must be an object of label: value strings")
		}
		key := keyTok.(string)
		var value string
		if err := dec.Decode(&value); err != nil {
			return fieldsErrorf("fields: the value of %q must be a string", clip(key))
		}
		if seen[key] {
			return fieldsErrorf("fields: label %q appears twice", clip(key))
		}
		seen[key] = true
		out = append(out, Field{Label: key, Value: value})
	}
	*f = out
	return nil
}

// MarshalJSON writes the fields as a JSON object in their order.
func (f Fields) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, field := range f {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(field.Label)
		v, _ := json.Marshal(field.Value)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
