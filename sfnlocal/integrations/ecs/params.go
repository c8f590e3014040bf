package ecs

import (
	"encoding/json"
	"fmt"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// runTaskInput is RunTask's request as a Task state's Parameters write it
// (PascalCase); fields the local stand-ins have no use for are ignored.
type runTaskInput struct {
	Cluster              string
	TaskDefinition       string
	LaunchType           string
	PlatformVersion      string
	StartedBy            string
	Group                string
	Count                *int
	EnableExecuteCommand bool
	NetworkConfiguration *struct {
		AwsvpcConfiguration struct {
			Subnets        []string
			SecurityGroups []string
			AssignPublicIp string
		}
	}
	Overrides struct {
		ContainerOverrides []containerOverride
	}
	Tags []struct{ Key, Value string }
}

type containerOverride struct {
	Name        string
	Command     []string
	Environment []keyValue
}

type keyValue struct {
	Name  string `json:"Name"`
	Value string `json:"Value"`
}

func parseParameters(raw json.RawMessage) (*runTaskInput, error) {
	var in runTaskInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, &task.Failure{Name: "States.Runtime", Cause: "ecs:runTask: the Parameters are not an object of RunTask's fields: " + err.Error()}
	}
	switch {
	case in.TaskDefinition == "":
		return nil, invalidParameter("TaskDefinition can not be blank.")
	case in.Count != nil && *in.Count != 1:
		return nil, invalidParameter(fmt.Sprintf("Count %d: the local engine runs one task per RunTask (Count 1).", *in.Count))
	}
	return &in, nil
}

// checkOverrides refuses an override of a container the definition does
// not have, as ECS does.
func (in *runTaskInput) checkOverrides(td TaskDefinition) error {
	for _, o := range in.Overrides.ContainerOverrides {
		if o.Name != td.Container {
			return invalidParameter(fmt.Sprintf("Override for container named %s is not a container in the TaskDefinition.", o.Name))
		}
	}
	return nil
}
