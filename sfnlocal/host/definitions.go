package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/sfnapprovals/approvals/sfnlocal"
)

// Suffix ends the name of every definition file; the state machine is
// named after the rest.
const Suffix = ".asl.json"

// Definition is a state machine definition with its placeholders filled.
type Definition struct {
	// Name is the state machine's name: the file name without Suffix.
	Name string
	// Path is the file it was read from ("" for an embedded one).
	Path string
	Text []byte
}

// Files lists the definition files of dir, in name order. A missing dir
// is an error.
func Files(dir string) ([]string, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("definitions directory: %w", err)
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*"+Suffix))
	if err != nil {
		return nil, fmt.Errorf("list definitions in %s: %w", dir, err)
	}
	sort.Strings(paths)
	return paths, nil
}

// Read reads a definition file and fills its ${Name} placeholders from
// subs (Substitute). A placeholder subs does not fill is an
// error wrapping *UnfilledError, which names it.
func Read(path string, subs map[string]string) (Definition, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Definition{}, fmt.Errorf("read definition: %w", err)
	}
	return Fill(nameOf(path), path, raw, subs)
}

// Fill fills the placeholders of a definition's text from subs.
func Fill(name, path string, raw []byte, subs map[string]string) (Definition, error) {
	text, err := Substitute(raw, subs)
	if err != nil {
		return Definition{}, err
	}
	return Definition{Name: name, Path: path, Text: text}, nil
}

// Change is what Deploy did.
type Change string

// The changes Deploy reports.
const (
	Created   Change = "created"
	Updated   Change = "updated"
	Unchanged Change = "unchanged"
)

// Deploy makes the Standard state machine named d.Name run d: it creates
// it, or updates the definition of the one that exists (executions
// already running keep theirs). An invalid definition is the engine's
// *sfnlocal.APIError (InvalidDefinition, with the validator's message)
// and changes nothing.
func Deploy(ctx context.Context, engine *sfnlocal.Engine, d Definition, roleArn string) (string, Change, error) {
	arn, err := find(ctx, engine, d.Name)
	if err != nil {
		return "", "", err
	}
	if arn == "" {
		sm, err := engine.CreateStateMachine(ctx, sfnlocal.CreateStateMachineInput{Name: d.Name, Definition: string(d.Text), RoleArn: roleArn})
		if err != nil {
			return "", "", err
		}
		return sm.StateMachineArn, Created, nil
	}
	current, err := engine.DescribeStateMachine(ctx, arn)
	if err != nil {
		return "", "", err
	}
	if current.Definition == string(d.Text) {
		return arn, Unchanged, nil
	}
	if _, err := engine.UpdateStateMachine(ctx, sfnlocal.UpdateStateMachineInput{StateMachineArn: arn, Definition: string(d.Text)}); err != nil {
		return "", "", err
	}
	return arn, Updated, nil
}

// find returns the ARN of the state machine named name, or "".
func find(ctx context.Context, engine *sfnlocal.Engine, name string) (string, error) {
	var next string
	for {
		out, err := engine.ListStateMachines(ctx, sfnlocal.ListStateMachinesInput{MaxResults: 1000, NextToken: next})
		if err != nil {
			return "", fmt.Errorf("list state machines: %w", err)
		}
		for _, m := range out.StateMachines {
			if m.Name == name {
				return m.StateMachineArn, nil
			}
		}
		if next = out.NextToken; next == "" {
			return "", nil
		}
	}
}
