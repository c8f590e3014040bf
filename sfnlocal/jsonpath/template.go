package jsonpath

import (
	"errors"
	"strings"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// Template expands a JSONPath payload template (Parameters, ResultSelector,
// ItemSelector, Assign). Objects and arrays are walked recursively; a key
// ending in ".$" has its string value evaluated, through intrinsic when it
// is an intrinsic function call ("States.…(…)") and through resolve when it
// is a path ("$…", "$$…", "$name…"), and is output without the suffix in
// its place: the output keeps the template's member order.
// Other values are copied as they are. Errors are *FieldError naming the
// key, wrapping the error from resolve or intrinsic unchanged.
func Template(tmpl any, resolve func(path string) (any, error), intrinsic func(expr string) (any, error)) (any, error) {
	switch t := tmpl.(type) {
	case *jsonvalue.Object:
		out := jsonvalue.NewObject(t.Len())
		for _, k := range t.Keys() {
			v, err := field(k, t, resolve, intrinsic)
			if err != nil {
				return nil, err
			}
			out.Set(strings.TrimSuffix(k, ".$"), v)
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, v := range t {
			var err error
			if out[i], err = Template(v, resolve, intrinsic); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return tmpl, nil
}

func field(k string, t *jsonvalue.Object, resolve, intrinsic func(string) (any, error)) (any, error) {
	v, _ := t.Get(k)
	name, dynamic := strings.CutSuffix(k, ".$")
	if !dynamic {
		return Template(v, resolve, intrinsic)
	}
	if _, dup := t.Get(name); dup {
		return nil, &FieldError{Field: k, Err: errors.New("the template also has a field " + name)}
	}
	s, ok := v.(string)
	if !ok {
		return nil, &FieldError{Field: k, Err: errors.New("the value of a field ending in .$ must be a string")}
	}
	var out any
	var err error
	switch {
	case strings.HasPrefix(s, "States.") && intrinsic != nil:
		out, err = intrinsic(s)
	case strings.HasPrefix(s, "$"):
		out, err = resolve(s)
	default:
		err = errors.New("the value is neither a path nor an intrinsic function call")
	}
	if err != nil {
		return nil, &FieldError{Field: k, Value: s, Err: err}
	}
	return out, nil
}
