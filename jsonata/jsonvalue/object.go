package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Object is a JSON object that keeps its members in the order they were
// first set, as Step Functions does: decoding keeps the text's order,
// setting an existing key replaces the value in place and setting a new
// key appends it. The zero value is an empty object. An Object is not safe
// for concurrent mutation; values shared between goroutines are treated
// as immutable (copy with Clone before changing one).
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty object with room for n members.
func NewObject(n int) *Object {
	return &Object{keys: make([]string, 0, n), vals: make(map[string]any, n)}
}

// ObjectOf builds an object from alternating keys and values:
// ObjectOf("Error", name, "Cause", cause). It panics on an odd count or a
// non-string key, which is a programming error.
func ObjectOf(kv ...any) *Object {
	if len(kv)%2 != 0 {
		panic("jsonvalue.ObjectOf: odd number of arguments")
	}
	o := NewObject(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Len is the number of members.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Get returns the value of key and whether it is present.
func (o *Object) Get(key string) (any, bool) {
	if o == nil || o.vals == nil {
		return nil, false
	}
	v, ok := o.vals[key]
	return v, ok
}

// Set sets key to v: in place when key exists, appended when it is new.
func (o *Object) Set(key string, v any) {
	if o.vals == nil {
		o.vals = make(map[string]any)
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// Delete removes key, keeping the order of the others.
func (o *Object) Delete(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// Keys returns the keys in order. The caller must not modify the slice.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// Range calls f for each member in order until f returns false.
func (o *Object) Range(f func(key string, v any) bool) {
	if o == nil {
		return
	}
	for _, k := range o.keys {
		if !f(k, o.vals[k]) {
			return
		}
	}
}

// Clone returns a shallow copy: the members are shared, the order and the
// set of keys are not.
func (o *Object) Clone() *Object {
	c := NewObject(o.Len())
	o.Range(func(k string, v any) bool { c.Set(k, v); return true })
	return c
}

// MarshalJSON renders the object with its members in order, without HTML
// escaping, as Step Functions does.
func (o *Object) MarshalJSON() ([]byte, error) {
	return AppendJSON(nil, o)
}

// Decode parses exactly one JSON text into the values this package
// describes: *Object (members in the text's order), []any, string,
// json.Number, bool and nil. A key that appears twice keeps its first
// position and its last value, as encoding/json keeps the last value.
func Decode(text []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			return nil, errors.New("unexpected data after the JSON value")
		}
		return nil, err
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewObject(4)
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key is %v, not a string", kt)
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, err
			}
			return o, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return tok, nil // string, json.Number, bool, nil
	}
}

// DeepCopy copies objects and arrays all the way down; other values are
// immutable and shared.
func DeepCopy(v any) any {
	switch v := v.(type) {
	case *Object:
		c := NewObject(v.Len())
		v.Range(func(k string, x any) bool { c.Set(k, DeepCopy(x)); return true })
		return c
	case []any:
		c := make([]any, len(v))
		for i, x := range v {
			c[i] = DeepCopy(x)
		}
		return c
	}
	return v
}
