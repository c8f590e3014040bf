package sfnapi

import (
	"context"

	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/validate"
)

type diagnostic struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	Location string `json:"location,omitempty"`
}

type validateOutput struct {
	Result      string       `json:"result"`
	Diagnostics []diagnostic `json:"diagnostics"`
	Truncated   bool         `json:"truncated"`
}

// validateStateMachineDefinition serves ValidateStateMachineDefinition.
// result is FAIL when any ERROR diagnostic exists, whatever severity
// filters out; severity ERROR (the default) lists errors only, WARNING
// lists both; maxResults (default and at most 100) truncates the list.
func (h *handler) validateStateMachineDefinition(_ context.Context, r *request) (any, error) {
	def := r.required("definition", maxDefinition, true)
	typ := r.enum("type", string(sfnlocal.Standard), string(sfnlocal.Express))
	severity := r.enum("severity", validate.SeverityError, validate.SeverityWarning)
	limit := r.maxResults(100)
	if err := r.err(); err != nil {
		return nil, err
	}
	if limit == 0 {
		limit = 100
	}
	diags := validate.DefinitionFor([]byte(def), typ)
	out := validateOutput{Result: "OK", Diagnostics: []diagnostic{}}
	for _, d := range diags {
		if d.Severity == validate.SeverityError {
			out.Result = "FAIL"
		} else if severity != validate.SeverityWarning {
			continue
		}
		if len(out.Diagnostics) == limit {
			out.Truncated = true
			continue
		}
		out.Diagnostics = append(out.Diagnostics, diagnostic{Severity: d.Severity, Code: d.Code, Message: d.Message, Location: d.Location})
	}
	return out, nil
}
