package definitions_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/sfnlocal/host"
	"github.com/sfnapprovals/approvals/sfnlocal/validate"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

func TestNames(t *testing.T) {
	t.Parallel()
	want := []string{
		definitions.ApproveOrEscalate,
		definitions.BatchWithApprovedRetries,
		definitions.BatchWithApprovedRetriesLambda,
		definitions.PublishWithApproval,
		definitions.PublishWithApprovalJSONata,
	}
	if got := definitions.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
}

func TestLoadUnknown(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"nope.asl.json", "publish-with-approval", "../definitions.go", ""} {
		if _, err := definitions.Load(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Load(%q) = %v, want fs.ErrNotExist", name, err)
		}
	}
}

// TestValidate runs every definition, deployed with its substitutions,
// through the static checks CreateStateMachine applies, and fails on any
// diagnostic, warnings included: none is expected.
func TestValidate(t *testing.T) {
	t.Parallel()
	for _, name := range definitions.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			raw, err := definitions.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			def, err := host.Substitute(raw, deployed())
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range validate.Definition(def) {
				t.Errorf("%s %s at %s: %s", d.Severity, d.Code, d.Location, d.Message)
			}
		})
	}
}

// TestValidateCatchesMistakes guards TestValidate: a broken copy of a
// definition must not pass.
func TestValidateCatchesMistakes(t *testing.T) {
	t.Parallel()
	def, err := definitions.Load(definitions.PublishWithApproval)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(def), `"Next": "WhatWasDecided"`, `"Next": "WhatWasDecidd"`, 1)
	var errs []string
	for _, d := range validate.Definition([]byte(broken)) {
		if d.Severity == validate.SeverityError {
			errs = append(errs, d.Code)
		}
	}
	if !slices.Contains(errs, validate.CodeMissingTransitionTarget) {
		t.Errorf("diagnostics of a definition with a dangling Next = %q, want %s", errs, validate.CodeMissingTransitionTarget)
	}
}

// TestFunctionsArePlaceholders checks what the README promises: every
// approval state invokes the notifier through ${NotifierFunctionArn}, and
// every other function is a placeholder too, so a definition deploys
// unedited with DefinitionSubstitutions.
func TestFunctionsArePlaceholders(t *testing.T) {
	t.Parallel()
	for _, name := range definitions.Names() {
		def, err := definitions.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		callbacks := strings.Count(string(def), "lambda:invoke.waitForTaskToken")
		notifiers := strings.Count(string(def), `"FunctionName": "${`+definitions.NotifierFunctionArn+`}"`)
		if callbacks == 0 || callbacks != notifiers {
			t.Errorf("%s: %d waitForTaskToken states, %d invoke ${%s}; want the same, at least one", name, callbacks, notifiers, definitions.NotifierFunctionArn)
		}
		for _, m := range functionName.FindAllStringSubmatch(string(def), -1) {
			if !strings.HasPrefix(m[1], "${") || !strings.HasSuffix(m[1], "FunctionArn}") {
				t.Errorf("%s: FunctionName %q is not a ${…FunctionArn} placeholder", name, m[1])
			}
		}
	}
}

var functionName = regexp.MustCompile(`"FunctionName":\s*"([^"]*)"`)

// TestApproversComeFromTheDefinition checks the trust model of every
// shipped workflow: each approval state takes the channel and the
// approvers from placeholders filled at deployment, never from the
// execution's data, and the first state refuses an input that names them
// or lacks a requester.
func TestApproversComeFromTheDefinition(t *testing.T) {
	t.Parallel()
	for _, name := range definitions.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			raw, err := definitions.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			var def struct {
				StartAt string
				States  map[string]struct {
					Type       string
					Resource   string
					Parameters struct{ Payload map[string]any }
					Arguments  struct{ Payload map[string]any }
					Choices    []struct{ Next string }
				}
			}
			if err := json.Unmarshal(raw, &def); err != nil {
				t.Fatal(err)
			}
			approvals := 0
			for stateName, st := range def.States {
				if !strings.HasSuffix(st.Resource, "waitForTaskToken") {
					continue
				}
				approvals++
				payload := st.Parameters.Payload
				if payload == nil {
					payload = st.Arguments.Payload
				}
				if payload["channel"] != "${"+definitions.Channel+"}" {
					t.Errorf("%s: channel is %v, want the placeholder ${%s}", stateName, payload["channel"], definitions.Channel)
				}
				approvers := fmt.Sprint(payload["approvers"], payload["approvers.$"])
				if !strings.Contains(approvers, "'${"+definitions.Approvers+"}'") && !strings.Contains(approvers, "'${"+definitions.EscalationApprovers+"}'") {
					t.Errorf("%s: approvers are %s, not split from a placeholder", stateName, approvers)
				}
			}
			if approvals == 0 {
				t.Fatal("no approval state")
			}
			first := def.States[def.StartAt]
			var nexts []string
			for _, c := range first.Choices {
				nexts = append(nexts, c.Next)
			}
			if first.Type != "Choice" || len(nexts) < 2 || !slices.Equal(nexts[:2], []string{"ApproversNotFromInput", "RequesterMissing"}) {
				t.Errorf("first state %s is a %s leading to %q; want the input checked first", def.StartAt, first.Type, nexts)
			}
			placeholders := host.Placeholders(raw)
			for _, p := range placeholders {
				if _, ok := deployed()[p]; !ok {
					t.Errorf("placeholder ${%s} is not one of the documented ones", p)
				}
			}
		})
	}
}
