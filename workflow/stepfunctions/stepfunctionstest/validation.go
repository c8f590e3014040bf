package stepfunctionstest

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// validation collects constraint violations the way AWS reports them in a
// ValidationException.
type validation []string

// length checks a string field's length. Sensitive fields are reported
// without their value, as AWS does.
func (v *validation) length(field string, value *string, required bool, limit int, sensitive bool) {
	switch {
	case value == nil && required:
		*v = append(*v, fmt.Sprintf("Value null at '%s' failed to satisfy constraint: Member must not be null", field))
	case value == nil:
	case required && *value == "":
		*v = append(*v, fmt.Sprintf("Value at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1", field))
	case utf8.RuneCountInString(*value) > limit && sensitive:
		*v = append(*v, fmt.Sprintf("Value at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", field, limit))
	case utf8.RuneCountInString(*value) > limit:
		*v = append(*v, fmt.Sprintf("Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", *value, field, limit))
	}
}

// err returns the ValidationException, or nil when nothing was violated.
func (v validation) err() *apiError {
	switch len(v) {
	case 0:
		return nil
	case 1:
		return &apiError{Type: "ValidationException", Message: "1 validation error detected: " + v[0]}
	}
	return &apiError{Type: "ValidationException", Message: fmt.Sprintf("%d validation errors detected: %s", len(v), strings.Join(v, "; "))}
}

// Limits of the callback API.
const (
	maxTokenLen  = 2048
	maxOutputLen = 262144
	maxErrorLen  = 256
	maxCauseLen  = 32768
	maxArnLen    = 2048
	maxPageToken = 1024
	maxPageSize  = 1000
	defaultPage  = 100
)
