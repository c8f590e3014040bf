package sfnlocal

import (
	"time"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// isoTime formats a time as the context object and JSONata do.
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// mapItem is $$.Map.Item while an ItemSelector is evaluated.
type mapItem struct {
	index int
	value any
	key   *string
}

// retryable are the state types that may retry, the only ones whose
// $$.State has a RetryCount on AWS.
var retryable = map[string]bool{"Task": true, "Parallel": true, "Map": true}

// contextObject builds $$ (JSONata: $states.context) for the current state,
// its members in the order AWS documents them: Execution, State,
// StateMachine, Task, Map.
func (t *thread) contextObject() *jsonvalue.Object {
	x := t.x
	c := jsonvalue.NewObject(5)
	if x.test != nil {
		return x.test.contextObject(t, c)
	}
	c.Set("Execution", jsonvalue.ObjectOf(
		"Id", x.arn,
		"Input", x.input,
		"Name", x.name,
		"RoleArn", x.roleArn,
		"StartTime", isoTime(x.start),
		"RedriveCount", jsonvalue.Int(0),
	))
	if t.st != nil {
		state := jsonvalue.ObjectOf("EnteredTime", isoTime(t.entered), "Name", t.st.name)
		if retryable[t.st.typ] {
			state.Set("RetryCount", jsonvalue.Int(int64(t.retryCount)))
		}
		c.Set("State", state)
	}
	c.Set("StateMachine", jsonvalue.ObjectOf("Id", x.m.arn, "Name", x.m.name))
	if t.token != "" {
		c.Set("Task", jsonvalue.ObjectOf("Token", t.token))
	}
	if t.item != nil {
		item := jsonvalue.ObjectOf("Index", jsonvalue.Int(int64(t.item.index)))
		if t.item.key != nil {
			item.Set("Key", *t.item.key)
		}
		item.Set("Value", t.item.value)
		c.Set("Map", jsonvalue.ObjectOf("Item", item))
	}
	return c
}
