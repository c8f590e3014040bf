package sfnapi

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sfnapprovals/approvals/workflow/sfnlocal"
	"github.com/sfnapprovals/approvals/workflow/sfnlocal/validate"
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
	diags := validate.Definition([]byte(def))
	if typ == string(sfnlocal.Express) {
		diags = append(diags, expressDiagnostics([]byte(def))...)
	}
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

// expressDiagnostics reports the Task states an Express machine cannot
// run: callbacks (.waitForTaskToken) and .sync jobs. The engine refuses
// them at CreateStateMachine, but validate.Definition does not know the
// machine type, so the check is repeated here.
func expressDiagnostics(def []byte) []validate.Diagnostic {
	var root map[string]any
	if json.Unmarshal(def, &root) != nil {
		return nil // validate.Definition already reported it
	}
	var diags []validate.Diagnostic
	walkMachine(root, "", &diags)
	return diags
}

func walkMachine(m map[string]any, at string, diags *[]validate.Diagnostic) {
	states, _ := m["States"].(map[string]any)
	names := make([]string, 0, len(states))
	for name := range states {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		st, _ := states[name].(map[string]any)
		loc := at + "/States/" + name
		if res, ok := st["Resource"].(string); ok {
			for _, suffix := range []string{".waitForTaskToken", ".sync"} {
				if strings.HasSuffix(res, suffix) || (suffix == ".sync" && strings.Contains(res, ".sync:")) {
					*diags = append(*diags, validate.Diagnostic{Severity: validate.SeverityError, Code: validate.CodeSchema, Location: loc + "/Resource",
						Message: fmt.Sprintf("Express state machine does not support '%s' service integration", suffix)})
				}
			}
		}
		branches, _ := st["Branches"].([]any)
		for i, b := range branches {
			if bm, ok := b.(map[string]any); ok {
				walkMachine(bm, fmt.Sprintf("%s/Branches[%d]", loc, i), diags)
			}
		}
		for _, field := range []string{"ItemProcessor", "Iterator"} {
			if p, ok := st[field].(map[string]any); ok {
				walkMachine(p, loc+"/"+field, diags)
			}
		}
	}
}
