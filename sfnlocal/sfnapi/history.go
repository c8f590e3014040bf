package sfnapi

import (
	"context"

	"github.com/sfnapprovals/approvals/sfnlocal"
)

type getExecutionHistoryOutput struct {
	// Events marshal themselves in AWS's wire shape.
	Events    []sfnlocal.HistoryEvent `json:"events"`
	NextToken string                  `json:"nextToken,omitempty"`
}

// getExecutionHistory serves GetExecutionHistory: paging (maxResults up to
// 1000, default 100), reverseOrder, and includeExecutionData (default
// true; false drops inputs, outputs and parameters from the details).
func (h *handler) getExecutionHistory(ctx context.Context, r *request) (any, error) {
	in := sfnlocal.GetExecutionHistoryInput{
		ExecutionArn:         r.required("executionArn", maxArn, false),
		MaxResults:           r.maxResults(1000),
		NextToken:            r.optional("nextToken", maxPageToken, false),
		IncludeExecutionData: r.boolean("includeExecutionData"),
	}
	if reverse := r.boolean("reverseOrder"); reverse != nil {
		in.ReverseOrder = *reverse
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	out, err := h.engine.GetExecutionHistory(ctx, in)
	if err != nil {
		return nil, err
	}
	if out.Events == nil {
		out.Events = []sfnlocal.HistoryEvent{}
	}
	return getExecutionHistoryOutput{Events: out.Events, NextToken: out.NextToken}, nil
}
