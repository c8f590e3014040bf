package sfnapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// request is one request body. Its getters read members by their exact
// name with AWS's typing: a member of the wrong JSON type is a
// SerializationException, a null member is absent, and unknown members
// are ignored. Constraint violations collect into one ValidationException.
// err reports the first of these.
type request struct {
	members    map[string]json.RawMessage
	malformed  *wireError
	violations []string
}

// parseRequest reads a body that must be one JSON object.
func parseRequest(body []byte) (*request, *wireError) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return nil, badRequest(codeSerialization, "%s", notExpected(typeErr.Value, "a structure"))
		}
		return nil, badRequest(codeSerialization, "Malformed request body: %v", err)
	}
	if members == nil {
		return nil, badRequest(codeSerialization, "The request body must be a JSON object, not null")
	}
	return &request{members: members}, nil
}

// err returns the request's SerializationException or ValidationException,
// or nil.
func (r *request) err() error {
	if r.malformed != nil {
		return r.malformed
	}
	if len(r.violations) > 0 {
		return validationError(r.violations)
	}
	return nil
}

// raw returns a member's JSON, or nil when it is absent or null.
func (r *request) raw(name string) json.RawMessage {
	v := bytes.TrimSpace(r.members[name])
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	return v
}

// wrongType records a SerializationException for a member whose JSON kind
// is not the one wanted (want: "a String", "an Integer", "a Boolean").
func (r *request) wrongType(v json.RawMessage, want string) {
	if r.malformed != nil {
		return
	}
	var kind string
	switch v[0] {
	case '{':
		kind = "object"
	case '[':
		kind = "array"
	case '"':
		kind = "string"
	case 't', 'f':
		kind = "bool"
	default:
		kind = "number"
	}
	r.malformed = badRequest(codeSerialization, "%s", notExpected(kind, want))
}

// notExpected words a type mismatch as AWS's JSON protocol does.
func notExpected(kind, want string) string {
	switch {
	case strings.HasPrefix(kind, "object"):
		return "Start of structure or map found where not expected."
	case strings.HasPrefix(kind, "array"):
		return "Start of list found where not expected"
	case strings.HasPrefix(kind, "string"):
		return "STRING_VALUE can not be converted to " + want
	case strings.HasPrefix(kind, "bool"):
		return "BOOLEAN_VALUE can not be converted to " + want
	}
	return "NUMBER_VALUE can not be converted to " + want
}

// str returns a string member, or nil when it is absent.
func (r *request) str(name string) *string {
	v := r.raw(name)
	if v == nil {
		return nil
	}
	var s string
	if v[0] != '"' || json.Unmarshal(v, &s) != nil {
		r.wrongType(v, "a String")
		return nil
	}
	return &s
}

// optional returns a string member, "" when absent. A sensitive member's
// value is never quoted in a violation.
func (r *request) optional(name string, maxLen int, sensitive bool) string {
	s := r.str(name)
	if s == nil {
		return ""
	}
	if utf8.RuneCountInString(*s) > maxLen {
		r.violate(name, *s, sensitive, fmt.Sprintf("Member must have length less than or equal to %d", maxLen))
	}
	return *s
}

// required returns a string member that must be present and not empty.
func (r *request) required(name string, maxLen int, sensitive bool) string {
	s := r.str(name)
	switch {
	case s == nil && r.raw(name) == nil:
		r.violations = append(r.violations, fmt.Sprintf("Value null at '%s' failed to satisfy constraint: Member must not be null", name))
		return ""
	case s == nil:
		return ""
	case *s == "":
		r.violate(name, *s, sensitive, "Member must have length greater than or equal to 1")
	case utf8.RuneCountInString(*s) > maxLen:
		r.violate(name, *s, sensitive, fmt.Sprintf("Member must have length less than or equal to %d", maxLen))
	}
	return *s
}

// present returns a string member that must be present, possibly empty.
func (r *request) present(name string, maxLen int, sensitive bool) string {
	if r.raw(name) == nil {
		r.violations = append(r.violations, fmt.Sprintf("Value null at '%s' failed to satisfy constraint: Member must not be null", name))
		return ""
	}
	return r.optional(name, maxLen, sensitive)
}

func (r *request) violate(name, value string, sensitive bool, constraint string) {
	if sensitive {
		r.violations = append(r.violations, fmt.Sprintf("Value at '%s' failed to satisfy constraint: %s", name, constraint))
		return
	}
	r.violations = append(r.violations, fmt.Sprintf("Value '%s' at '%s' failed to satisfy constraint: %s", value, name, constraint))
}

// enum returns a string member that, when present, is one of values.
func (r *request) enum(name string, values ...string) string {
	s := r.str(name)
	if s == nil {
		return ""
	}
	if !slices.Contains(values, *s) {
		r.violate(name, *s, false, "Member must satisfy enum value set: ["+strings.Join(values, ", ")+"]")
	}
	return *s
}

// integer returns an integer member (a 32-bit integer on the wire), 0 when
// absent.
func (r *request) integer(name string) int {
	v := r.raw(name)
	if v == nil {
		return 0
	}
	if v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		r.wrongType(v, "an Integer")
		return 0
	}
	n, err := strconv.ParseInt(string(v), 10, 32)
	if err != nil {
		r.malformed = badRequest(codeSerialization, "NUMBER_VALUE %s can not be converted to an Integer", v)
		return 0
	}
	return int(n)
}

// boolean returns a boolean member, or nil when it is absent.
func (r *request) boolean(name string) *bool {
	v := r.raw(name)
	if v == nil {
		return nil
	}
	var b bool
	if (v[0] != 't' && v[0] != 'f') || json.Unmarshal(v, &b) != nil {
		r.wrongType(v, "a Boolean")
		return nil
	}
	return &b
}

// maxResults returns a paging size member that must lie in [0, limit].
func (r *request) maxResults(limit int) int {
	n := r.integer("maxResults")
	switch {
	case n < 0:
		r.violate("maxResults", strconv.Itoa(n), false, "Member must have value greater than or equal to 0")
	case n > limit:
		r.violate("maxResults", strconv.Itoa(n), false, fmt.Sprintf("Member must have value less than or equal to %d", limit))
	}
	return n
}
