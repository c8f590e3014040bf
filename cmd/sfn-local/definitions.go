package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sfnapprovals/approvals/workflow/definitions"
	"github.com/sfnapprovals/approvals/workflow/sfnlocal"
)

const definitionSuffix = ".asl.json"

// createDefinitions creates a state machine for every *.asl.json file in
// dir, named after the file without the suffix, with its ${Name}
// placeholders filled from subs, and returns their ARNs in file name
// order. A file that does not compile, or has a placeholder subs does not
// fill, stops the start, naming it.
func createDefinitions(ctx context.Context, engine *sfnlocal.Engine, dir, roleArn string, subs map[string]string) ([]string, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("definitions directory: %w", err)
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*"+definitionSuffix))
	if err != nil {
		return nil, fmt.Errorf("list definitions in %s: %w", dir, err)
	}
	sort.Strings(paths)
	arns := make([]string, 0, len(paths))
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read definition: %w", err)
		}
		def, err := definitions.Substitute(raw, subs)
		var unfilled *definitions.UnfilledError
		if errors.As(err, &unfilled) {
			return nil, fmt.Errorf("%s: %w: pass -substitute %s=…", path, err, strings.Join(unfilled.Names, "=… -substitute "))
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		name := strings.TrimSuffix(filepath.Base(path), definitionSuffix)
		sm, err := engine.CreateStateMachine(ctx, sfnlocal.CreateStateMachineInput{Name: name, Definition: string(def), RoleArn: roleArn})
		if err != nil {
			return nil, fmt.Errorf("create state machine from %s: %w", path, err)
		}
		arns = append(arns, sm.StateMachineArn)
	}
	return arns, nil
}
