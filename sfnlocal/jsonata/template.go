package jsonata

import (
	"context"
	"strconv"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// Template evaluates every JSONata expression in v, a JSON value such as
// an Arguments, Output or Assign field, recursively through objects and
// arrays; everything else is copied. Objects keep the template's member
// order. It is TemplateField with the field left unnamed, so error causes
// locate expressions relative to v ("a/b", "[0]").
func Template(ctx context.Context, v any, env Env) (any, error) {
	return TemplateField(ctx, "", v, env)
}

// TemplateField is Template for the state field named field ("Output",
// "Arguments", "Choices[0]/Condition"). An error's cause names the field
// down to the expression that failed, as AWS does: "Output/order/ids[1]".
// An expression that evaluates to undefined fails the state, as on AWS; it
// is not dropped. Expressions are evaluated in the template's order, all
// at the same instant (env.Now), and the first failure is reported. Once
// ctx ends, a running evaluation stops and the error is ctx.Err(). Safe
// for concurrent use.
func TemplateField(ctx context.Context, field string, v any, env Env) (any, error) {
	ev, err := newEvaluation(ctx, env)
	if err != nil {
		return nil, err
	}
	return ev.walk(field, v)
}

func (ev *evaluation) walk(field string, v any) (any, error) {
	switch v := v.(type) {
	case string:
		if IsExpression(v) {
			return ev.eval(field, body(v))
		}
		return v, nil
	case *jsonvalue.Object:
		out := jsonvalue.NewObject(v.Len()) // in the template's order
		for _, k := range v.Keys() {
			x, _ := v.Get(k)
			x, err := ev.walk(join(field, k), x)
			if err != nil {
				return nil, err
			}
			out.Set(k, x)
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			var err error
			if out[i], err = ev.walk(field+"["+strconv.Itoa(i)+"]", x); err != nil {
				return nil, err
			}
		}
		return out, nil
	default:
		return v, nil
	}
}

// join names member name of field: "Output/name", or "name" at the top.
func join(field, name string) string {
	if field == "" {
		return name
	}
	return field + "/" + name
}
