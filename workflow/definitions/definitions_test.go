package definitions_test

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/workflow/definitions"
	"github.com/sfnapprovals/approvals/workflow/sfnlocal/validate"
)

func TestNames(t *testing.T) {
	t.Parallel()
	want := []string{
		definitions.ApproveOrEscalate,
		definitions.BatchWithApprovedRetries,
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

// TestValidate runs every definition through the static checks
// CreateStateMachine applies, and fails on any diagnostic, warnings
// included: none is expected.
func TestValidate(t *testing.T) {
	t.Parallel()
	for _, name := range definitions.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			def, err := definitions.Load(name)
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

// TestNotifierIsReplaceable checks what the README promises: every
// approval state invokes the notifier by the one placeholder name, so a
// single substitution deploys a definition.
func TestNotifierIsReplaceable(t *testing.T) {
	t.Parallel()
	for _, name := range definitions.Names() {
		def, err := definitions.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		callbacks := strings.Count(string(def), "lambda:invoke.waitForTaskToken")
		notifiers := strings.Count(string(def), `"FunctionName": "`+definitions.NotifierFunction+`"`)
		if callbacks == 0 || callbacks != notifiers {
			t.Errorf("%s: %d waitForTaskToken states, %d invoke %q; want the same, at least one", name, callbacks, notifiers, definitions.NotifierFunction)
		}
	}
}
