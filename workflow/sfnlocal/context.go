package sfnlocal

import (
	"time"

	"github.com/sfnapprovals/approvals/workflow/sfnlocal/internal/jsonvalue"
)

// isoTime formats a time as the context object and JSONata do.
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// mapItem is $$.Map.Item while an ItemSelector is evaluated.
type mapItem struct {
	index int
	value any
	key   *string
}

// contextObject builds $$ (JSONata: $states.context) for the current state.
func (t *thread) contextObject() map[string]any {
	x := t.x
	c := map[string]any{
		"Execution": map[string]any{
			"Id":           x.arn,
			"Input":        x.input,
			"Name":         x.name,
			"RoleArn":      x.roleArn,
			"StartTime":    isoTime(x.start),
			"RedriveCount": jsonvalue.Int(0),
		},
		"StateMachine": map[string]any{"Id": x.m.arn, "Name": x.m.name},
	}
	if t.st != nil {
		c["State"] = map[string]any{"EnteredTime": isoTime(t.entered), "Name": t.st.name, "RetryCount": jsonvalue.Int(int64(t.retryCount))}
	}
	if t.token != "" {
		c["Task"] = map[string]any{"Token": t.token}
	}
	if t.item != nil {
		item := map[string]any{"Index": jsonvalue.Int(int64(t.item.index)), "Value": t.item.value}
		if t.item.key != nil {
			item["Key"] = *t.item.key
		}
		c["Map"] = map[string]any{"Item": item}
	}
	return c
}
