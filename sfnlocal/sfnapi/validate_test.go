package sfnapi_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

func TestValidateStateMachineDefinition(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const (
		warnsOnly = `{"StartAt":"S","States":{"S":{"Type":"Pass","Result":{"a.$":"$"},"End":true}}}`
		twoErrors = `{"StartAt":"pass1","States":{"pass1":{"Type":"Pass","Next":"pass3"},"pass2":{"Type":"Pass","End":true}}}`
	)
	tests := []struct {
		name       string
		in         sfn.ValidateStateMachineDefinitionInput
		result     types.ValidateStateMachineDefinitionResultCode
		codes      []string
		locations  []string
		truncated  bool
		severities []types.ValidateStateMachineDefinitionSeverity
	}{
		{name: "valid", in: sfn.ValidateStateMachineDefinitionInput{Definition: aws.String(passDef)}, result: "OK"},
		{name: "warnings hidden by default", in: sfn.ValidateStateMachineDefinitionInput{Definition: aws.String(warnsOnly)}, result: "OK"},
		{
			name:   "warnings shown",
			in:     sfn.ValidateStateMachineDefinitionInput{Definition: aws.String(warnsOnly), Severity: types.ValidateStateMachineDefinitionSeverityWarning},
			result: "OK", codes: []string{"PASS_RESULT_IS_STATIC"}, locations: []string{"/States/S/Result"},
			severities: []types.ValidateStateMachineDefinitionSeverity{"WARNING"},
		},
		{
			name:   "errors",
			in:     sfn.ValidateStateMachineDefinitionInput{Definition: aws.String(twoErrors)},
			result: "FAIL", codes: []string{"MISSING_TRANSITION_TARGET", "MISSING_TRANSITION_TARGET"},
			locations:  []string{"/States/pass1/Next", "/States/pass2"},
			severities: []types.ValidateStateMachineDefinitionSeverity{"ERROR", "ERROR"},
		},
		{
			name:   "truncated",
			in:     sfn.ValidateStateMachineDefinitionInput{Definition: aws.String(twoErrors), MaxResults: 1},
			result: "FAIL", codes: []string{"MISSING_TRANSITION_TARGET"}, locations: []string{"/States/pass1/Next"}, truncated: true,
			severities: []types.ValidateStateMachineDefinitionSeverity{"ERROR"},
		},
		{
			name: "not JSON", in: sfn.ValidateStateMachineDefinitionInput{Definition: aws.String(`{"StartAt":`)},
			result: "FAIL", codes: []string{"INVALID_JSON_DESCRIPTION"}, locations: []string{"line: 1, column: 1"},
			severities: []types.ValidateStateMachineDefinitionSeverity{"ERROR"},
		},
		{name: "callback in a Standard machine", in: sfn.ValidateStateMachineDefinitionInput{Definition: aws.String(approvalDef)}, result: "OK"},
		{
			name:   "callback in an Express machine",
			in:     sfn.ValidateStateMachineDefinitionInput{Definition: aws.String(approvalDef), Type: types.StateMachineTypeExpress},
			result: "FAIL", codes: []string{"SCHEMA_VALIDATION_FAILED"}, locations: []string{"/States/Approve/Resource"},
			severities: []types.ValidateStateMachineDefinitionSeverity{"ERROR"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := f.client.ValidateStateMachineDefinition(testContext(t), &tt.in)
			if err != nil {
				t.Fatalf("ValidateStateMachineDefinition: %v", err)
			}
			if out.Result != tt.result || aws.ToBool(out.Truncated) != tt.truncated {
				t.Errorf("result %s, truncated %v; want %s, %v", out.Result, aws.ToBool(out.Truncated), tt.result, tt.truncated)
			}
			if len(out.Diagnostics) != len(tt.codes) {
				t.Fatalf("diagnostics = %+v, want codes %v", out.Diagnostics, tt.codes)
			}
			for i, d := range out.Diagnostics {
				if aws.ToString(d.Code) != tt.codes[i] || aws.ToString(d.Location) != tt.locations[i] ||
					d.Severity != types.ValidateStateMachineDefinitionSeverity(tt.severities[i]) || aws.ToString(d.Message) == "" {
					t.Errorf("diagnostic %d = %s %s %q at %q; want %s %s at %q", i, d.Severity, aws.ToString(d.Code), aws.ToString(d.Message),
						aws.ToString(d.Location), tt.severities[i], tt.codes[i], tt.locations[i])
				}
			}
		})
	}
}
