package sfnapi

import (
	"bytes"
	"context"
	"strconv"

	"github.com/sfnapprovals/approvals/sfnlocal"
)

// getExecutionHistory serves GetExecutionHistory: paging (maxResults up to
// 1000, default 100, see sfnlocal's GetExecutionHistory), reverseOrder, and
// includeExecutionData (default true; false drops inputs, outputs and
// parameters from the details).
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
	return encodeHistory(out)
}

// encodeHistory writes {"events":[…],"nextToken":…} itself: each event
// already renders as compact JSON, so the body is built in one pass,
// without encoding/json re-reading every event's text (a history page can
// hold 100 events of 256 KiB each).
func encodeHistory(out sfnlocal.GetExecutionHistoryOutput) (encoded, error) {
	b := bytes.NewBufferString(`{"events":[`)
	for i, ev := range out.Events {
		if i > 0 {
			b.WriteByte(',')
		}
		text, err := ev.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b.Write(text)
	}
	b.WriteByte(']')
	if out.NextToken != "" {
		b.WriteString(`,"nextToken":`)
		b.WriteString(strconv.Quote(out.NextToken))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
