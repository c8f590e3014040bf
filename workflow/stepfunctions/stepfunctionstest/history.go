package stepfunctionstest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// pageCursor is what a GetExecutionHistory nextToken carries: the ID of the
// next event to return, for one execution and direction. Being keyed by
// event ID, it stays valid while the history grows.
type pageCursor struct {
	Arn     string `json:"a"`
	Next    int64  `json:"n"`
	Reverse bool   `json:"r"`
}

func (c pageCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (pageCursor, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return pageCursor{}, false
	}
	var c pageCursor
	if json.Unmarshal(b, &c) != nil || c.Next < 1 {
		return pageCursor{}, false
	}
	return c, true
}

func (s *Server) getExecutionHistory(body []byte) (any, *apiError) {
	var in struct {
		ExecutionArn         *string `json:"executionArn"`
		MaxResults           *int    `json:"maxResults"`
		NextToken            *string `json:"nextToken"`
		ReverseOrder         bool    `json:"reverseOrder"`
		IncludeExecutionData *bool   `json:"includeExecutionData"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	var v validation
	v.length("executionArn", in.ExecutionArn, true, maxArnLen, false)
	v.length("nextToken", in.NextToken, false, maxPageToken, false)
	if m := in.MaxResults; m != nil && *m > maxPageSize {
		v = append(v, fmt.Sprintf("Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to %d", *m, maxPageSize))
	}
	if m := in.MaxResults; m != nil && *m < 0 {
		v = append(v, fmt.Sprintf("Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value greater than or equal to 0", *m))
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	arn := *in.ExecutionArn
	if !strings.HasPrefix(arn, "arn:") {
		return nil, &apiError{Type: "InvalidArn", Message: "Invalid Arn: 'Resource type not valid in this context: " + arn + "'"}
	}
	events, ok := s.cb.events(arn)
	if !ok {
		return nil, executionDoesNotExist(arn)
	}
	if in.ReverseOrder {
		slices.Reverse(events)
	}
	start := 0
	if in.NextToken != nil {
		c, ok := decodeCursor(*in.NextToken)
		if !ok || c.Arn != arn || c.Reverse != in.ReverseOrder {
			return nil, &apiError{Type: "InvalidToken", Message: "Invalid Token: 'Invalid nextToken'"}
		}
		start = slices.IndexFunc(events, func(e historyEvent) bool { return e.ID == c.Next })
		if start < 0 {
			return nil, &apiError{Type: "InvalidToken", Message: "Invalid Token: 'Invalid nextToken'"}
		}
	}
	size := defaultPage
	if in.MaxResults != nil && *in.MaxResults > 0 {
		size = *in.MaxResults
	}
	end := min(start+size, len(events))
	page := events[start:end]
	if in.IncludeExecutionData != nil && !*in.IncludeExecutionData {
		for i := range page {
			page[i] = page[i].withoutData()
		}
	}
	out := struct {
		Events    []historyEvent `json:"events"`
		NextToken string         `json:"nextToken,omitempty"`
	}{Events: page}
	if end < len(events) {
		out.NextToken = pageCursor{Arn: arn, Next: events[end].ID, Reverse: in.ReverseOrder}.encode()
	}
	return out, nil
}
