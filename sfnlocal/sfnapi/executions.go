package sfnapi

import (
	"context"

	"github.com/sfnapprovals/approvals/sfnlocal"
)

type startExecutionOutput struct {
	ExecutionArn string `json:"executionArn"`
	StartDate    epoch  `json:"startDate"`
}

// startExecution serves StartExecution. A stateMachineArn ending in
// "#TestCase" runs that mock test case, as with Step Functions Local.
func (h *handler) startExecution(ctx context.Context, r *request) (any, error) {
	in := sfnlocal.StartExecutionInput{
		StateMachineArn: r.required("stateMachineArn", maxArn, false),
		Name:            r.optional("name", maxName, false),
		Input:           r.optional("input", maxData, true),
		TraceHeader:     r.optional("traceHeader", maxTrace, false),
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	out, err := h.engine.StartExecution(ctx, in)
	if err != nil {
		return nil, err
	}
	return startExecutionOutput{ExecutionArn: out.ExecutionArn, StartDate: epoch(out.StartDate)}, nil
}

type describeExecutionOutput struct {
	ExecutionArn        string           `json:"executionArn"`
	StateMachineArn     string           `json:"stateMachineArn"`
	Name                string           `json:"name,omitempty"`
	Status              string           `json:"status"`
	StartDate           epoch            `json:"startDate"`
	StopDate            epoch            `json:"stopDate,omitzero"`
	Input               string           `json:"input,omitempty"`
	InputDetails        *includedDetails `json:"inputDetails,omitempty"`
	Output              string           `json:"output,omitempty"`
	OutputDetails       *includedDetails `json:"outputDetails,omitempty"`
	Error               string           `json:"error,omitempty"`
	Cause               string           `json:"cause,omitempty"`
	TraceHeader         string           `json:"traceHeader,omitempty"`
	RedriveCount        int              `json:"redriveCount"`
	RedriveStatus       string           `json:"redriveStatus"`
	RedriveStatusReason string           `json:"redriveStatusReason"`
}

// describeExecution serves DescribeExecution; includedData METADATA_ONLY
// leaves the input and output out. Executions are never redrivable here.
func (h *handler) describeExecution(ctx context.Context, r *request) (any, error) {
	arn := r.required("executionArn", maxArn, false)
	included := r.enum("includedData", allData, metadataOnly)
	if err := r.err(); err != nil {
		return nil, err
	}
	x, err := h.engine.DescribeExecution(ctx, arn)
	if err != nil {
		return nil, err
	}
	out := describeExecutionOutput{
		ExecutionArn: x.ExecutionArn, StateMachineArn: x.StateMachineArn, Name: x.Name, Status: x.Status,
		StartDate: epoch(x.StartDate), StopDate: epoch(x.StopDate), Error: x.Error, Cause: x.Cause,
		TraceHeader: x.TraceHeader, RedriveCount: x.RedriveCount,
		RedriveStatus: x.RedriveStatus, RedriveStatusReason: x.RedriveStatusReason,
	}
	if included != metadataOnly {
		out.Input, out.InputDetails = x.Input, &includedDetails{Included: true}
		if x.Status == sfnlocal.StatusSucceeded {
			out.Output, out.OutputDetails = x.Output, &includedDetails{Included: true}
		}
	}
	return out, nil
}

type describeStateMachineForExecutionOutput struct {
	StateMachineArn      string               `json:"stateMachineArn"`
	Name                 string               `json:"name"`
	Definition           string               `json:"definition,omitempty"`
	RoleArn              string               `json:"roleArn"`
	UpdateDate           epoch                `json:"updateDate"`
	RevisionID           string               `json:"revisionId,omitempty"`
	LoggingConfiguration loggingConfiguration `json:"loggingConfiguration"`
	TracingConfiguration tracingConfiguration `json:"tracingConfiguration"`
}

// describeStateMachineForExecution serves DescribeStateMachineForExecution
// with the machine as it is now: the engine does not expose the revision
// an execution started with, so after an UpdateStateMachine this shows the
// new definition, and updateDate is the creation date.
func (h *handler) describeStateMachineForExecution(ctx context.Context, r *request) (any, error) {
	arn := r.required("executionArn", maxArn, false)
	included := r.enum("includedData", allData, metadataOnly)
	if err := r.err(); err != nil {
		return nil, err
	}
	x, err := h.engine.DescribeExecution(ctx, arn)
	if err != nil {
		return nil, err
	}
	sm, err := h.engine.DescribeStateMachine(ctx, x.StateMachineArn)
	if err != nil {
		return nil, err
	}
	out := describeStateMachineForExecutionOutput{
		StateMachineArn: sm.StateMachineArn, Name: sm.Name, Definition: sm.Definition, RoleArn: sm.RoleArn,
		UpdateDate: epoch(sm.CreationDate), RevisionID: sm.RevisionID, LoggingConfiguration: loggingConfiguration{Level: "OFF"},
	}
	if included == metadataOnly {
		out.Definition = ""
	}
	return out, nil
}

type stopExecutionOutput struct {
	StopDate epoch `json:"stopDate"`
}

// stopExecution serves StopExecution.
func (h *handler) stopExecution(ctx context.Context, r *request) (any, error) {
	in := sfnlocal.StopExecutionInput{
		ExecutionArn: r.required("executionArn", maxArn, false),
		Error:        r.optional("error", maxError, true),
		Cause:        r.optional("cause", maxCause, true),
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	out, err := h.engine.StopExecution(ctx, in)
	if err != nil {
		return nil, err
	}
	return stopExecutionOutput{StopDate: epoch(out.StopDate)}, nil
}

type executionListItem struct {
	ExecutionArn    string `json:"executionArn"`
	StateMachineArn string `json:"stateMachineArn"`
	Name            string `json:"name"`
	Status          string `json:"status"`
	StartDate       epoch  `json:"startDate"`
	StopDate        epoch  `json:"stopDate,omitzero"`
}

type listExecutionsOutput struct {
	Executions []executionListItem `json:"executions"`
	NextToken  string              `json:"nextToken,omitempty"`
}

// listExecutions serves ListExecutions for a state machine, newest first;
// Map Runs and redriveFilter are not supported.
func (h *handler) listExecutions(ctx context.Context, r *request) (any, error) {
	in := sfnlocal.ListExecutionsInput{
		StateMachineArn: r.optional("stateMachineArn", maxArn, false),
		StatusFilter:    r.optional("statusFilter", 64, false),
		MaxResults:      r.maxResults(1000),
		NextToken:       r.optional("nextToken", maxPageToken, false),
	}
	mapRun := r.optional("mapRunArn", maxArn, false)
	if err := r.err(); err != nil {
		return nil, err
	}
	switch {
	case mapRun != "":
		return nil, badRequest(codeValidation, "sfn-local does not support Map Runs: list executions by stateMachineArn")
	case in.StateMachineArn == "":
		return nil, badRequest(codeValidation, "Must provide a StateMachine ARN or MapRun ARN")
	}
	out, err := h.engine.ListExecutions(ctx, in)
	if err != nil {
		return nil, err
	}
	resp := listExecutionsOutput{Executions: []executionListItem{}, NextToken: out.NextToken}
	for _, x := range out.Executions {
		resp.Executions = append(resp.Executions, executionListItem{
			ExecutionArn: x.ExecutionArn, StateMachineArn: x.StateMachineArn, Name: x.Name, Status: x.Status,
			StartDate: epoch(x.StartDate), StopDate: epoch(x.StopDate),
		})
	}
	return resp, nil
}
