package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sfnapprovals/approvals/sfnlocal"
	"github.com/sfnapprovals/approvals/sfnlocal/host"
)

// createDefinitions creates a state machine for every *.asl.json file in
// dir, named after the file without the suffix, with its ${Name}
// placeholders filled from subs, and returns their ARNs in file name
// order. A file that does not compile, or has a placeholder subs does not
// fill, stops the start, naming it.
func createDefinitions(ctx context.Context, engine *sfnlocal.Engine, dir, roleArn string, subs map[string]string) ([]string, error) {
	paths, err := host.Files(dir)
	if err != nil {
		return nil, err
	}
	arns := make([]string, 0, len(paths))
	for _, path := range paths {
		def, err := host.Read(path, subs)
		var unfilled *host.UnfilledError
		switch {
		case errors.As(err, &unfilled):
			return nil, fmt.Errorf("%s: %w: pass -substitute %s=…", path, err, strings.Join(unfilled.Names, "=… -substitute "))
		case err != nil:
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		sm, err := engine.CreateStateMachine(ctx, sfnlocal.CreateStateMachineInput{Name: def.Name, Definition: string(def.Text), RoleArn: roleArn})
		if err != nil {
			return nil, fmt.Errorf("create state machine from %s: %w", path, err)
		}
		arns = append(arns, sm.StateMachineArn)
	}
	return arns, nil
}
