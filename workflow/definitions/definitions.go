// Package definitions holds the state machines this project ships as
// examples to copy: Amazon States Language definitions that pause for a
// Slack approval through the notifier Lambda (see README.md in this folder
// for what each one does, its input and the errors it handles).
//
// Who may approve, and in which channel, is part of each definition: the
// ${Channel}, ${Approvers} and ${EscalationApprovers} placeholders, which
// CloudFormation's DefinitionSubstitutions fill at deployment and
// Substitute fills the same way in Go. An execution's input only names
// who asks (requestedBy) and is refused if it names approvers.
//
// The Lambda functions each definition invokes are placeholders too
// (${NotifierFunctionArn}, ${DraftAgentFunctionArn}, …), so a definition
// is deployed as it is, never edited by hand. The tests run every
// definition on the local engine with the real notifier registered under
// the name they substitute for NotifierFunctionArn.
package definitions

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
)

// The shipped definitions, by file name.
const (
	PublishWithApproval        = "publish-with-approval.asl.json"
	PublishWithApprovalJSONata = "publish-with-approval.jsonata.asl.json"
	ApproveOrEscalate          = "approve-or-escalate.asl.json"
	// BatchWithApprovedRetries runs its workers as ECS tasks;
	// BatchWithApprovedRetriesLambda is the same workflow with a Lambda
	// function as the worker.
	BatchWithApprovedRetries       = "batch-with-approved-retries.asl.json"
	BatchWithApprovedRetriesLambda = "batch-with-approved-retries.lambda.asl.json"
)

// FS holds every definition as <name>.asl.json at its root.
//
//go:embed *.asl.json
var FS embed.FS

// Names returns the file names of the definitions, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(FS, ".") // the embedded root always reads
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// Load returns the definition with the file name, e.g.
// PublishWithApproval. An unknown name is an error wrapping
// fs.ErrNotExist.
func Load(name string) ([]byte, error) {
	if !strings.HasSuffix(name, ".asl.json") || strings.Contains(name, "/") {
		return nil, fmt.Errorf("load state machine definition %q: %w", name, fs.ErrNotExist)
	}
	b, err := FS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("load state machine definition %q: %w", name, err)
	}
	return b, nil
}
