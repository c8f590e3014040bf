package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// fieldsError is a malformed "fields" object; its text quotes at most a
// clipped label, never a value.
type fieldsError struct{ msg string }

func (e *fieldsError) Error() string { return e.msg }

func fieldsErrorf(format string, args ...any) error {
	return &fieldsError{msg: fmt.Sprintf(format, args...)}
}

// Fields is an ordered list of label/value pairs. In JSON it is an object
// whose key order is kept, because people read fields in the order given.
type Fields []Field

// UnmarshalJSON reads a JSON object of string values, keeping key order.
func (f *Fields) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		*f = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return fieldsErrorf("fields must be an object of label: value strings")
	}
	var out Fields
	seen := map[string]bool{}
	for dec.More() {
		keyTok, err := dec.Token()
		if err != nil {
			return fieldsErrorf("fields must be an object of label: value strings")
		}
		key := keyTok.(string)
		var value string
		if err := dec.Decode(&value); err != nil {
			return fieldsErrorf("fields: the value of %q must be a string", clip(key))
		}
		if seen[key] {
			return fieldsErrorf("fields: label %q appears twice", clip(key))
		}
		seen[key] = true
		out = append(out, Field{Label: key, Value: value})
	}
	*f = out
	return nil
}

// MarshalJSON writes the fields as a JSON object in their order.
func (f Fields) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, field := range f {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(field.Label)
		v, _ := json.Marshal(field.Value)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
