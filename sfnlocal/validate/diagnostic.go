package validate

import "strings"

// Severities of a Diagnostic.
const (
	SeverityError   = "ERROR"
	SeverityWarning = "WARNING"
)

// Diagnostic codes, as ValidateStateMachineDefinition names them.
const (
	CodeInvalidJSON             = "INVALID_JSON_DESCRIPTION"
	CodeSchema                  = "SCHEMA_VALIDATION_FAILED"
	CodeMissingTransitionTarget = "MISSING_TRANSITION_TARGET"
	CodeMissingEndState         = "MISSING_END_STATE"
	CodeDuplicateStateName      = "DUPLICATE_STATE_NAME"
	CodeInvalidStateName        = "INVALID_STATE_NAME"
	CodeDuplicateLabelName      = "DUPLICATE_LABEL_NAME"
	CodeInvalidLabelName        = "INVALID_LABEL_NAME"
	CodeInvalidJSONata          = "INVALID_JSONATA_EXPRESSION"
	CodeUnsupportedJSONata      = "UNSUPPORTED_JSONATA_EXPRESSION"
	CodeNoDollar                = "NO_DOLLAR"
	CodeNoPath                  = "NO_PATH"
	CodePassResultIsStatic      = "PASS_RESULT_IS_STATIC"
)

// Diagnostic is one finding about a definition, shaped like an element of
// ValidateStateMachineDefinition's diagnostics list.
type Diagnostic struct {
	Severity string // SeverityError or SeverityWarning
	Code     string
	Message  string
	// Location points into the definition, e.g. "/States/Approve/Next";
	// empty when the finding has no place (unparsable JSON, no end state).
	Location string
}

// InvalidDefinition is the error CreateStateMachine and UpdateStateMachine
// answer with: it holds every ERROR diagnostic, in the order found.
type InvalidDefinition struct {
	Diagnostics []Diagnostic
}

// Error reads like AWS's InvalidDefinition message, e.g.
// "Invalid State Machine Definition: 'MISSING_TRANSITION_TARGET: Missing
// 'Next' target: X at /States/A/Next'". Several diagnostics are joined with
// ", " and a diagnostic without a location ends "at null", as on AWS.
func (e *InvalidDefinition) Error() string {
	parts := make([]string, 0, len(e.Diagnostics))
	for _, d := range e.Diagnostics {
		loc := d.Location
		if loc == "" {
			loc = "null"
		}
		parts = append(parts, d.Code+": "+d.Message+" at "+loc)
	}
	return "Invalid State Machine Definition: '" + strings.Join(parts, ", ") + "'"
}

// Check reports whether a definition may be stored: nil, or an
// *InvalidDefinition holding the ERROR diagnostics (warnings never fail).
func Check(definition []byte) error { return CheckFor(definition, "") }

// CheckFor is Check for a machine of a type, as DefinitionFor.
func CheckFor(definition []byte, machineType string) error {
	var errs []Diagnostic
	for _, d := range DefinitionFor(definition, machineType) {
		if d.Severity == SeverityError {
			errs = append(errs, d)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &InvalidDefinition{Diagnostics: errs}
}

// Definition returns every diagnostic for a definition, errors and
// warnings, in a stable order: document checks first, then each state
// (sorted by name, nested machines where they occur), then each machine's
// transition checks. It is safe for concurrent use.
func Definition(definition []byte) []Diagnostic { return DefinitionFor(definition, "") }

// DefinitionFor is Definition for a machine of a type, "STANDARD" (also
// "") or "EXPRESS": an Express machine may not wait for a task token or a
// .sync job.
func DefinitionFor(definition []byte, machineType string) []Diagnostic {
	root, diag := decode(definition)
	if diag != nil {
		return []Diagnostic{*diag}
	}
	c := newChecker()
	c.express = machineType == express
	c.duplicates(definition)
	c.topMachine(root)
	return c.diags
}
