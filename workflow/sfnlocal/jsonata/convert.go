package jsonata

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/blues/jsonata-go/jtypes"

	"github.com/sfnapprovals/approvals/workflow/sfnlocal/internal/jsonvalue"
)

// null is how the library represents JSON null; a plain nil is undefined
// to it, so a null field would vanish from $states.input.
var null any = (*any)(nil)

// orders remembers the member order of the objects toLib converted, keyed
// by the identity of the map made for each. The library has no ordered
// object, but it hands back the maps it was given when an expression
// selects an object without building a new one ($states.input.fields), so
// such an object comes back in its order. A nil orders remembers nothing.
type orders map[uintptr][]string

// toLib converts an engine JSON value into the library's form: objects as
// map[string]any, numbers as float64, null as a typed nil pointer. It
// always copies, so nothing the engine holds is shared with an
// evaluation; ord, when not nil, records each object's member order.
func toLib(v any, ord orders) (any, error) {
	switch v := v.(type) {
	case nil:
		return null, nil
	case string, bool, float64:
		return v, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s is out of range", v)
		}
		return f, nil
	case int:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case *jsonvalue.Object:
		out := make(map[string]any, v.Len())
		var err error
		v.Range(func(k string, x any) bool {
			out[k], err = toLib(x, ord)
			return err == nil
		})
		if err != nil {
			return nil, err
		}
		if ord != nil {
			ord[reflect.ValueOf(out).Pointer()] = v.Keys()
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			c, err := toLib(x, ord)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%T is not a JSON value", v)
	}
}

// errFunction reports a function where JSON needs a value.
var errFunction = errors.New("a function cannot be converted to JSON")

// fromLib converts a library result back into an engine JSON value.
// Undefined members of objects and arrays are dropped, as JSON.stringify
// drops them; the caller decides what an undefined result means. An
// object toLib made (found in ord) comes back in its original member
// order; an object the expression built is a Go map without order, so
// its members come back sorted by key: the same every time, though not
// always the order AWS would give.
func fromLib(v reflect.Value, ord orders) (any, bool, error) {
	for v.IsValid() && (v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer) {
		if v.IsNil() {
			return nil, true, nil
		}
		if jtypes.IsCallable(v) {
			return nil, false, errFunction
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return nil, false, nil
	}
	if jtypes.IsCallable(v) {
		return nil, false, errFunction
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), true, nil
	case reflect.Bool:
		return v.Bool(), true, nil
	case reflect.Float32, reflect.Float64:
		n, err := number(v.Float())
		return n, err == nil, err
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return json.Number(strconv.FormatInt(v.Int(), 10)), true, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return json.Number(strconv.FormatUint(v.Uint(), 10)), true, nil
	case reflect.Slice, reflect.Array:
		out := make([]any, 0, v.Len())
		for i := range v.Len() {
			x, ok, err := fromLib(v.Index(i), ord)
			if err != nil {
				return nil, false, err
			}
			if ok {
				out = append(out, x)
			}
		}
		return out, true, nil
	case reflect.Map:
		return objectFromLib(v, ord)
	}
	return nil, false, fmt.Errorf("%s cannot be converted to JSON", v.Type())
}

// objectFromLib converts a library map: the members toLib recorded in
// their order, any others after them sorted by key.
func objectFromLib(v reflect.Value, ord orders) (any, bool, error) {
	values := make(map[string]reflect.Value, v.Len())
	iter := v.MapRange()
	for iter.Next() {
		values[fmt.Sprint(iter.Key().Interface())] = iter.Value()
	}
	keys := make([]string, 0, len(values))
	for _, k := range ord[v.Pointer()] {
		if _, ok := values[k]; ok {
			keys = append(keys, k)
		}
	}
	if known := len(keys); known < len(values) {
		seen := make(map[string]bool, known)
		for _, k := range keys {
			seen[k] = true
		}
		for k := range values {
			if !seen[k] {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys[known:])
	}
	out := jsonvalue.NewObject(len(keys))
	for _, k := range keys {
		x, ok, err := fromLib(values[k], ord)
		if err != nil {
			return nil, false, err
		}
		if ok {
			out.Set(k, x)
		}
	}
	return out, true, nil
}

// number renders f the way JavaScript (and so JSONata) writes numbers:
// integers without a fraction (3, not 3.0), exponents only from 1e21 and
// below 1e-6.
func number(f float64) (json.Number, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("number %v cannot be represented in JSON", f)
	}
	if f == 0 {
		return "0", nil
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Shortest round-trip digits and the decimal exponent, as in d.ddde±x.
	mantissa, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	digits := strings.Replace(mantissa, ".", "", 1)
	e, _ := strconv.Atoi(exp)
	k, n := len(digits), e+1 // n: position of the decimal point
	var s string
	switch {
	case k <= n && n <= 21:
		s = digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		s = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		s = "0." + strings.Repeat("0", -n) + digits
	default:
		s = digits[:1]
		if k > 1 {
			s += "." + digits[1:]
		}
		if n-1 >= 0 {
			s += "e+" + strconv.Itoa(n-1)
		} else {
			s += "e-" + strconv.Itoa(1-n)
		}
	}
	return json.Number(sign + s), nil
}
