package sfnapi

import (
	"context"

	"github.com/sfnapprovals/approvals/sfnlocal"
)

// Length limits of the API's members, from the service model.
const (
	maxArn        = 2000 // LongArn; plain Arns are shorter
	maxName       = 80
	maxDefinition = 1 << 20
	maxData       = 262144 // input and output
	maxTrace      = 256
	maxToken      = 2048
	maxPageToken  = 1024
	maxError      = 256
	maxCause      = 32768
)

type createStateMachineOutput struct {
	StateMachineArn string `json:"stateMachineArn"`
	CreationDate    epoch  `json:"creationDate"`
}

// createStateMachine serves CreateStateMachine. Logging, tracing,
// encryption and tags are accepted and ignored; publishing a version is
// refused.
func (h *handler) createStateMachine(ctx context.Context, r *request) (any, error) {
	in := sfnlocal.CreateStateMachineInput{
		Name:       r.required("name", maxName, false),
		Definition: r.required("definition", maxDefinition, true),
		RoleArn:    r.required("roleArn", maxArn, false),
		Type:       sfnlocal.StateMachineType(r.enum("type", string(sfnlocal.Standard), string(sfnlocal.Express))),
	}
	publish := r.boolean("publish")
	if err := r.err(); err != nil {
		return nil, err
	}
	if publish != nil && *publish {
		return nil, badRequest(codeValidation, "sfn-local does not support state machine versions: publish must be false")
	}
	sm, err := h.engine.CreateStateMachine(ctx, in)
	if err != nil {
		return nil, err
	}
	return createStateMachineOutput{StateMachineArn: sm.StateMachineArn, CreationDate: epoch(sm.CreationDate)}, nil
}

type loggingConfiguration struct {
	Level                string `json:"level"`
	IncludeExecutionData bool   `json:"includeExecutionData"`
}

type tracingConfiguration struct {
	Enabled bool `json:"enabled"`
}

type describeStateMachineOutput struct {
	StateMachineArn      string               `json:"stateMachineArn"`
	Name                 string               `json:"name"`
	Status               string               `json:"status"`
	Definition           string               `json:"definition,omitempty"`
	RoleArn              string               `json:"roleArn"`
	Type                 string               `json:"type"`
	CreationDate         epoch                `json:"creationDate"`
	RevisionID           string               `json:"revisionId,omitempty"`
	LoggingConfiguration loggingConfiguration `json:"loggingConfiguration"`
	TracingConfiguration tracingConfiguration `json:"tracingConfiguration"`
}

// describeStateMachine serves DescribeStateMachine; includedData
// METADATA_ONLY leaves the definition out.
func (h *handler) describeStateMachine(ctx context.Context, r *request) (any, error) {
	arn := r.required("stateMachineArn", maxArn, false)
	included := r.enum("includedData", allData, metadataOnly)
	if err := r.err(); err != nil {
		return nil, err
	}
	sm, err := h.engine.DescribeStateMachine(ctx, arn)
	if err != nil {
		return nil, err
	}
	out := describeStateMachineOutput{
		StateMachineArn: sm.StateMachineArn, Name: sm.Name, Status: sm.Status, Definition: sm.Definition,
		RoleArn: sm.RoleArn, Type: string(sm.Type), CreationDate: epoch(sm.CreationDate), RevisionID: sm.RevisionID,
		LoggingConfiguration: loggingConfiguration{Level: "OFF"},
	}
	if included == metadataOnly {
		out.Definition = ""
	}
	return out, nil
}

type updateStateMachineOutput struct {
	UpdateDate epoch  `json:"updateDate"`
	RevisionID string `json:"revisionId,omitempty"`
}

// updateStateMachine serves UpdateStateMachine; as for create, only the
// definition and role are applied.
func (h *handler) updateStateMachine(ctx context.Context, r *request) (any, error) {
	in := sfnlocal.UpdateStateMachineInput{
		StateMachineArn: r.required("stateMachineArn", maxArn, false),
		Definition:      r.optional("definition", maxDefinition, true),
		RoleArn:         r.optional("roleArn", maxArn, false),
	}
	publish := r.boolean("publish")
	if err := r.err(); err != nil {
		return nil, err
	}
	if publish != nil && *publish {
		return nil, badRequest(codeValidation, "sfn-local does not support state machine versions: publish must be false")
	}
	out, err := h.engine.UpdateStateMachine(ctx, in)
	if err != nil {
		return nil, err
	}
	return updateStateMachineOutput{UpdateDate: epoch(out.UpdateDate), RevisionID: out.RevisionID}, nil
}

// deleteStateMachine serves DeleteStateMachine.
func (h *handler) deleteStateMachine(ctx context.Context, r *request) (any, error) {
	arn := r.required("stateMachineArn", maxArn, false)
	if err := r.err(); err != nil {
		return nil, err
	}
	if err := h.engine.DeleteStateMachine(ctx, arn); err != nil {
		return nil, err
	}
	return empty{}, nil
}

type stateMachineListItem struct {
	StateMachineArn string `json:"stateMachineArn"`
	Name            string `json:"name"`
	Type            string `json:"type"`
	CreationDate    epoch  `json:"creationDate"`
}

type listStateMachinesOutput struct {
	StateMachines []stateMachineListItem `json:"stateMachines"`
	NextToken     string                 `json:"nextToken,omitempty"`
}

// listStateMachines serves ListStateMachines, in creation order.
func (h *handler) listStateMachines(ctx context.Context, r *request) (any, error) {
	in := sfnlocal.ListStateMachinesInput{
		MaxResults: r.maxResults(1000),
		NextToken:  r.optional("nextToken", maxPageToken, false),
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	out, err := h.engine.ListStateMachines(ctx, in)
	if err != nil {
		return nil, err
	}
	resp := listStateMachinesOutput{StateMachines: []stateMachineListItem{}, NextToken: out.NextToken}
	for _, m := range out.StateMachines {
		resp.StateMachines = append(resp.StateMachines, stateMachineListItem{
			StateMachineArn: m.StateMachineArn, Name: m.Name, Type: string(m.Type), CreationDate: epoch(m.CreationDate),
		})
	}
	return resp, nil
}
