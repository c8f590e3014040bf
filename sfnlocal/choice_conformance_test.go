package sfnlocal

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A choice-operator fixture (testdata/conformance/choice_operators/*.json)
// holds the cases of one of LocalStack's choice_operators snapshots as AWS
// recorded them: for each comparison operator, the inputs sent and the
// output each execution ended with. Only the outputs were recorded, not the
// histories.
type choiceFixture struct {
	Source struct {
		Repo string `json:"repo"`
		Path string `json:"path"`
		Test string `json:"test"`
		Note string `json:"note"`
	} `json:"source"`
	Tests []struct {
		Test     string `json:"test"`
		Operator string `json:"operator"`
		Cases    []struct {
			Input  json.RawMessage `json:"input"`
			Output json.RawMessage `json:"output"`
		} `json:"cases"`
	} `json:"tests"`
}

// choiceDefinition rebuilds the state machine of LocalStack's choice
// operator tests: their template file (templates/choiceoperators/
// statemachines/template.json5) is not in the copy we could read, but the
// test module (choice_operators/utils.py, choice_operators_templates.py)
// fixes what varies: one Choice rule comparing $.Variable with the operator
// named in the placeholder %ComparisonOperatorType%, against "$.Value" for a
// Path operator and otherwise against the case's Value written into the
// definition. The recorded outputs ({"TestResult.$": "ConditionTrue"} or
// "ConditionFalse") are Pass states' literal Results, one per branch.
func choiceDefinition(operator string, value json.RawMessage) string {
	operand := `"$.Value"`
	if !strings.HasSuffix(operator, "Path") {
		operand = string(value)
	}
	return fmt.Sprintf(`{"StartAt":"CheckValues","States":{
		"CheckValues":{"Type":"Choice","Choices":[{"Variable":"$.Variable",%q:%s,"Next":"ConditionTrue"}],"Default":"ConditionFalse"},
		"ConditionTrue":{"Type":"Pass","Result":{"TestResult.$":"ConditionTrue"},"End":true},
		"ConditionFalse":{"Type":"Pass","Result":{"TestResult.$":"ConditionFalse"},"End":true}}}`, operator, operand)
}

// TestChoiceOperatorConformance runs every case of the choice-operator
// fixtures and checks that the execution succeeds with the output AWS
// recorded, that is, that the Choice took the branch AWS took.
func TestChoiceOperatorConformance(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "conformance", "choice_operators", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			t.Parallel()
			f := readChoiceFixture(t, file)
			h := newHarness(t)
			for _, tt := range f.Tests {
				t.Run(tt.Test[strings.LastIndex(tt.Test, ":")+1:], func(t *testing.T) {
					for i, c := range tt.Cases {
						var in struct{ Value json.RawMessage }
						if err := json.Unmarshal(c.Input, &in); err != nil || in.Value == nil {
							t.Fatalf("case %d: the input has no Value: %s", i, c.Input)
						}
						x := h.run(choiceDefinition(tt.Operator, in.Value), string(compactJSON(t, c.Input)))
						if x.Status != StatusSucceeded || !jsonSame(json.RawMessage(x.Output), c.Output) {
							t.Errorf("case %d: %s with input %s: %s %s (%s: %s), want SUCCEEDED %s",
								i, tt.Operator, c.Input, x.Status, x.Output, x.Error, x.Cause, c.Output)
						}
					}
				})
			}
		})
	}
}

func readChoiceFixture(t *testing.T, file string) choiceFixture {
	t.Helper()
	var f choiceFixture
	decodeFixture(t, file, &f)
	if f.Source.Repo == "" || f.Source.Path == "" || len(f.Tests) == 0 {
		t.Fatalf("%s: the fixture does not name the recording it reflects or has no tests", file)
	}
	for _, tt := range f.Tests {
		if tt.Operator == "" || len(tt.Cases) == 0 {
			t.Fatalf("%s: %s has no operator or no cases", file, tt.Test)
		}
	}
	return f
}
