package jsonata

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	lang "github.com/sfnapprovals/approvals/jsonata"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// toLang converts an engine JSON value into the evaluator's form, where
// every number is a float64. The evaluator never changes its inputs, so
// an object or array with no number anywhere inside is shared as it is;
// the others are copied down to their numbers.
func toLang(v any) (any, error) {
	out, _, err := langValue(v)
	return out, err
}

// langValue is toLang, also reporting whether the value changed.
func langValue(v any) (out any, changed bool, err error) {
	switch v := v.(type) {
	case nil, string, bool, float64:
		return v, false, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, false, fmt.Errorf("number %s is out of range", v)
		}
		return f, true, nil
	case int:
		return float64(v), true, nil
	case int64:
		return float64(v), true, nil
	case *jsonvalue.Object:
		return langObject(v)
	case []any:
		return langArray(v)
	}
	return nil, false, fmt.Errorf("%T is not a JSON value", v)
}

func langObject(o *jsonvalue.Object) (any, bool, error) {
	keys := o.Keys()
	var out *jsonvalue.Object // made at the first member that changes
	for i, k := range keys {
		x, _ := o.Get(k)
		c, changed, err := langValue(x)
		if err != nil {
			return nil, false, err
		}
		if changed && out == nil {
			out = jsonvalue.NewObject(len(keys))
			for _, prev := range keys[:i] {
				p, _ := o.Get(prev)
				out.Set(prev, p)
			}
		}
		if out != nil {
			out.Set(k, c)
		}
	}
	if out == nil {
		return o, false, nil
	}
	return out, true, nil
}

func langArray(a []any) (any, bool, error) {
	var out []any // made at the first member that changes
	for i, x := range a {
		c, changed, err := langValue(x)
		if err != nil {
			return nil, false, err
		}
		if changed && out == nil {
			out = make([]any, len(a))
			copy(out, a[:i])
		}
		if out != nil {
			out[i] = c
		}
	}
	if out == nil {
		return a, false, nil
	}
	return out, true, nil
}

// errFunction reports a function where JSON needs a value.
var errFunction = errors.New("a function cannot be converted to JSON")

// fromLang converts an evaluation result into a fresh engine JSON value:
// numbers as json.Number in JavaScript's text, objects in the evaluator's
// member order. Inside arrays and objects, Undefined is treated as
// JSON.stringify treats undefined: null in an array, no member in an
// object. The caller decides what an Undefined result means. A result
// that shares its arrays or objects is copied wherever it is reached, so
// the copy is bounded: past maxItems members (0 for lang.DefaultMaxItems)
// it fails with JavaScript's "Invalid array length".
func fromLang(v any, maxItems int) (any, error) {
	room := copyRoom(maxItems)
	return fromLangWithin(v, &room)
}

// copyRoom is how many members copying out a result may take.
func copyRoom(maxItems int) int {
	if maxItems > 0 {
		return maxItems
	}
	return lang.DefaultMaxItems
}

var errTooLarge = &lang.Error{Message: "Invalid array length"}

// fromLangWithin is fromLang taking the members it copies from *room.
func fromLangWithin(v any, room *int) (any, error) {
	switch v := v.(type) {
	case nil, string, bool:
		return v, nil
	case float64:
		return number(v)
	case []any:
		if *room -= len(v); *room < 0 {
			return nil, errTooLarge
		}
		out := make([]any, len(v))
		for i, x := range v {
			if lang.IsUndefined(x) {
				continue // nil
			}
			c, err := fromLangWithin(x, room)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case *jsonvalue.Object:
		if *room -= v.Len(); *room < 0 {
			return nil, errTooLarge
		}
		out := jsonvalue.NewObject(v.Len())
		var err error
		v.Range(func(k string, x any) bool {
			if lang.IsUndefined(x) {
				return true
			}
			var c any
			if c, err = fromLangWithin(x, room); err == nil {
				out.Set(k, c)
			}
			return err == nil
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	case lang.Function:
		return nil, errFunction
	}
	return nil, fmt.Errorf("%T cannot be converted to JSON", v)
}

// nonFinite is the error for a NaN or infinite number where JSON needs
// one: jsonata-js's D1001, with the number as JavaScript writes it.
func nonFinite(f float64) error {
	text := "NaN"
	switch {
	case math.IsInf(f, 1):
		text = "Infinity"
	case math.IsInf(f, -1):
		text = "-Infinity"
	}
	return &lang.Error{Code: "D1001", Message: "Number out of range: " + text}
}

// number renders f the way JavaScript (and so JSONata) writes numbers:
// integers without a fraction (3, not 3.0), exponents only from 1e21 and
// below 1e-6. NaN and the infinities, which JSON cannot hold, are an error.
func number(f float64) (json.Number, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", nonFinite(f)
	}
	return json.Number(lang.NumberText(f)), nil
}
