package validate

import (
	"errors"
	"testing"
)

func TestCheckMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, def, want string
	}{
		{"valid", `{"StartAt":"S","States":{"S":{"Type":"Succeed"}}}`, ""},
		{"warnings only", `{"StartAt":"S","States":{"S":{"Type":"Pass","Result":{"a.$":"$"},"End":true}}}`, ""},
		{"one error", `{"StartAt":"P","States":{"P":{"Type":"Parallel","TimeoutSeconds":5,"Branches":[{"StartAt":"W","States":{"W":{"Type":"Succeed"}}}],"End":true}}}`,
			"Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: Field 'TimeoutSeconds' is not supported at /States/P'"},
		{"several errors", `{"StartAt":"pass1","States":{"pass1":{"Type":"Pass","Next":"pass3"},"pass2":{"Type":"Pass","End":true}}}`,
			"Invalid State Machine Definition: 'MISSING_TRANSITION_TARGET: Missing 'Next' target: pass3 at /States/pass1/Next, " +
				"MISSING_TRANSITION_TARGET: State \"pass2\" is not reachable. at /States/pass2'"},
		{"no location", `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"A"}}}`,
			"Invalid State Machine Definition: 'MISSING_END_STATE: Workflow has no terminal state at null'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Check([]byte(tt.def))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check() = %v, want nil", err)
				}
				return
			}
			var invalid *InvalidDefinition
			if !errors.As(err, &invalid) {
				t.Fatalf("Check() = %v, want *InvalidDefinition", err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("Error() =\n %s\nwant\n %s", got, tt.want)
			}
			for _, d := range invalid.Diagnostics {
				if d.Severity != SeverityError {
					t.Errorf("diagnostic %+v is not an error", d)
				}
			}
		})
	}
}
