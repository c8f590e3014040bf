package sfnapi

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/sfnapprovals/approvals/sfnlocal"
)

// testStateOutput is TestState's response; JSON texts travel as strings.
type testStateOutput struct {
	Output         *string         `json:"output,omitempty"`
	Error          string          `json:"error,omitempty"`
	Cause          string          `json:"cause,omitempty"`
	InspectionData *inspectionData `json:"inspectionData,omitempty"`
	NextState      string          `json:"nextState,omitempty"`
	Status         string          `json:"status"`
}

type inspectionData struct {
	Input                      string                  `json:"input,omitempty"`
	AfterArguments             string                  `json:"afterArguments,omitempty"`
	AfterInputPath             string                  `json:"afterInputPath,omitempty"`
	AfterParameters            string                  `json:"afterParameters,omitempty"`
	Result                     string                  `json:"result,omitempty"`
	AfterResultSelector        string                  `json:"afterResultSelector,omitempty"`
	AfterResultPath            string                  `json:"afterResultPath,omitempty"`
	AfterItemsPath             string                  `json:"afterItemsPath,omitempty"`
	Variables                  string                  `json:"variables,omitempty"`
	MaxConcurrency             *int64                  `json:"maxConcurrency,omitempty"`
	ToleratedFailureCount      *int64                  `json:"toleratedFailureCount,omitempty"`
	ToleratedFailurePercentage *float64                `json:"toleratedFailurePercentage,omitempty"`
	ErrorDetails               *inspectionErrorDetails `json:"errorDetails,omitempty"`
}

type inspectionErrorDetails struct {
	CatchIndex                  *int   `json:"catchIndex,omitempty"`
	RetryIndex                  *int   `json:"retryIndex,omitempty"`
	RetryBackoffIntervalSeconds *int64 `json:"retryBackoffIntervalSeconds,omitempty"`
}

// testState serves TestState: one state run once (see sfnlocal's
// TestState), answered with its output, error, next state, status and, at
// the DEBUG and TRACE levels, its inspection data.
func (h *handler) testState(ctx context.Context, r *request) (any, error) {
	in := sfnlocal.TestStateInput{
		Definition:      r.required("definition", maxDefinition, true),
		RoleArn:         r.optional("roleArn", maxArn, false),
		Input:           r.optional("input", maxData, true),
		InspectionLevel: r.enum("inspectionLevel", sfnlocal.InspectionInfo, sfnlocal.InspectionDebug, sfnlocal.InspectionTrace),
		Variables:       r.optional("variables", maxData, true),
		StateName:       r.optional("stateName", maxName, false),
		Context:         r.optional("context", maxData, true),
	}
	if b := r.boolean("revealSecrets"); b != nil {
		in.RevealSecrets = *b
	}
	in.Mock = testMock(r)
	in.StateConfiguration = testConfiguration(r)
	if err := r.err(); err != nil {
		return nil, err
	}
	out, err := h.engine.TestState(ctx, in)
	if err != nil {
		return nil, err
	}
	resp := testStateOutput{Error: out.Error, Cause: out.Cause, NextState: out.NextState, Status: out.Status}
	if out.HasOutput {
		resp.Output = &out.Output
	}
	if d := out.InspectionData; d != nil {
		resp.InspectionData = &inspectionData{Input: d.Input, AfterArguments: d.AfterArguments, AfterInputPath: d.AfterInputPath,
			AfterParameters: d.AfterParameters, Result: d.Result, AfterResultSelector: d.AfterResultSelector,
			AfterResultPath: d.AfterResultPath, AfterItemsPath: d.AfterItemsPath, Variables: d.Variables,
			MaxConcurrency: d.MaxConcurrency, ToleratedFailureCount: d.ToleratedFailureCount,
			ToleratedFailurePercentage: d.ToleratedFailurePercentage}
		if e := d.ErrorDetails; e != nil {
			resp.InspectionData.ErrorDetails = &inspectionErrorDetails{CatchIndex: e.CatchIndex, RetryIndex: e.RetryIndex,
				RetryBackoffIntervalSeconds: e.RetryBackoffIntervalSeconds}
		}
	}
	return resp, nil
}

// testMock reads the mock member: {result, errorOutput{error, cause},
// fieldValidationMode}.
func testMock(r *request) *sfnlocal.TestStateMock {
	sub := r.object("mock")
	if sub == nil {
		return nil
	}
	m := &sfnlocal.TestStateMock{
		FieldValidationMode: sub.enum("fieldValidationMode", "STRICT", "PRESENT", "NONE"),
	}
	if s := sub.str("result"); s != nil {
		m.Result = s
	}
	if e := sub.object("errorOutput"); e != nil {
		m.ErrorOutput = &sfnlocal.MockErrorOutput{Error: e.optional("error", maxError, false), Cause: e.optional("cause", maxCause, true)}
		r.adopt(e)
	}
	r.adopt(sub)
	return m
}

// testConfiguration reads the stateConfiguration member.
func testConfiguration(r *request) *sfnlocal.TestStateConfiguration {
	sub := r.object("stateConfiguration")
	if sub == nil {
		return nil
	}
	c := &sfnlocal.TestStateConfiguration{
		ErrorCausedByState: sub.optional("errorCausedByState", maxName, false),
		MapItemReaderData:  sub.optional("mapItemReaderData", maxData, true),
	}
	if sub.raw("retrierRetryCount") != nil {
		n := int64(sub.integer("retrierRetryCount"))
		if n < 0 {
			sub.violate("stateConfiguration.retrierRetryCount", strconv.FormatInt(n, 10), false, "Member must have value greater than or equal to 0")
		}
		c.RetrierRetryCount = &n
	}
	if sub.raw("mapIterationFailureCount") != nil {
		n := int64(sub.integer("mapIterationFailureCount"))
		c.MapIterationFailureCount = &n
	}
	r.adopt(sub)
	return c
}

// object returns a structure member as a request of its own, or nil when
// it is absent; a member that is not an object is a
// SerializationException.
func (r *request) object(name string) *request {
	v := r.raw(name)
	if v == nil {
		return nil
	}
	var members map[string]json.RawMessage
	if v[0] != '{' || json.Unmarshal(v, &members) != nil {
		r.wrongType(v, "a Structure")
		return nil
	}
	return &request{members: members}
}

// adopt takes a member structure's errors as the request's own.
func (r *request) adopt(sub *request) {
	if sub.malformed != nil && r.malformed == nil {
		r.malformed = sub.malformed
	}
	r.violations = append(r.violations, sub.violations...)
}
