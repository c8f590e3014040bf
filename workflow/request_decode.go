package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// requestKeys are the keys of a notifier payload, spelt exactly as they
// must be (Request's json tags), in the order the contract lists them;
// requestField maps each to the index of its field in Request.
var requestKeys, requestField = func() ([]string, map[string]int) {
	t := reflect.TypeFor[Request]()
	keys := make([]string, 0, t.NumField())
	index := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		key := t.Field(i).Tag.Get("json")
		keys = append(keys, key)
		index[key] = i
	}
	return keys, index
}()

// member is one key and its raw value, in payload order.
type member struct {
	key   string
	value json.RawMessage
}

// decodeRequest reads a payload strictly: one JSON object whose keys are
// each a request key spelt exactly and given once. encoding/json would
// match keys regardless of case and let the last duplicate win, so that
// "Approvers" after "approvers" silently replaced the approvers. Error
// texts name keys, never values: a value can be a task token.
func decodeRequest(payload []byte) (Request, error) {
	if err := checkNesting(payload); err != nil {
		return Request{}, err
	}
	members, err := readObject(payload)
	if err != nil {
		return Request{}, err
	}
	var r Request
	for _, m := range members {
		if err := r.set(m.key, m.value); err != nil {
			return Request{}, err
		}
	}
	return r, nil
}

// MaxRequestNesting is how deep arrays and objects may nest in an
// approval request. A request needs two levels (the request object, and
// an array or the fields object in it); a payload nested deeper is refused
// before anything in it is decoded, so that no payload costs more than
// one pass over its bytes.
const MaxRequestNesting = 8

// checkNesting refuses a payload whose arrays and objects nest deeper
// than MaxRequestNesting, in one pass over its bytes (strings skipped).
// Malformed JSON is left to the decoder.
func checkNesting(payload []byte) error {
	depth, inString, escaped := 0, false, false
	for _, c := range payload {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > MaxRequestNesting {
				return Errorf(EINVALID, "approval request nests arrays and objects more than %d deep; a request needs 2 (the request object, and the fields object or an array of strings in it)", MaxRequestNesting)
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}

// readObject returns the members of the payload's top-level object after
// checking every key. A JSON null is an object without members.
func readObject(payload []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(payload))
	tok, err := dec.Token()
	if err != nil {
		return nil, notJSON()
	}
	var members []member
	switch tok {
	case nil:
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			keyTok, err := dec.Token()
			if err != nil {
				return nil, notJSON()
			}
			key := keyTok.(string) // inside an object the decoder only yields string keys here
			var value json.RawMessage
			if err := dec.Decode(&value); err != nil {
				return nil, notJSON()
			}
			if err := checkKey(key, seen); err != nil {
				return nil, err
			}
			seen[key] = true
			members = append(members, member{key: key, value: value})
		}
		if _, err := dec.Token(); err != nil {
			return nil, notJSON()
		}
	default:
		return nil, Errorf(EINVALID, "approval request must be a JSON object, not %s", kindOfToken(tok))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, Errorf(EINVALID, "approval request has trailing data after the JSON object")
	}
	return members, nil
}

func notJSON() error {
	return Errorf(EINVALID, "approval request is not valid JSON")
}

// checkKey refuses a key that is not a request key as spelt, or that was
// seen before, naming the key and, where it is a near miss, the right one.
func checkKey(key string, seen map[string]bool) error {
	q := quoteKey(key)
	for _, k := range requestKeys {
		if key == k {
			if seen[key] {
				return Errorf(EINVALID, "field %s appears more than once in the approval request; give it once", q)
			}
			return nil
		}
	}
	for _, k := range requestKeys {
		if strings.EqualFold(key, k) {
			return Errorf(EINVALID, "%s is not a field; did you mean %q?", q, k)
		}
	}
	if base, ok := strings.CutSuffix(key, ".$"); ok {
		for _, k := range requestKeys {
			if strings.EqualFold(base, k) {
				return Errorf(EINVALID, `%s is not a field: Step Functions resolves a key ending in ".$" only in a JSONPath state's Parameters, and passed this one on as it is; did you mean %q?`, q, k)
			}
		}
	}
	for _, k := range requestKeys {
		if editDistance(strings.ToLower(key), strings.ToLower(k)) <= 2 {
			return Errorf(EINVALID, "unknown field %s; did you mean %q?", q, k)
		}
	}
	return Errorf(EINVALID, "unknown field %s; the fields are %s", q, strings.Join(requestKeys, ", "))
}

// quoteKey quotes a key for an error message, shortened if long.
func quoteKey(key string) string { return fmt.Sprintf("%q", clip(key)) }

// set decodes the raw value of one request key into r.
func (r *Request) set(key string, raw json.RawMessage) error {
	i, ok := requestField[key]
	if !ok {
		return Errorf(EINVALID, "unknown field %s", quoteKey(key)) // checkKey lets none through
	}
	return decodeValue(key, raw, reflect.ValueOf(r).Elem().Field(i).Addr().Interface())
}

// decodeValue decodes raw into dst; a JSON null leaves dst as it is. The
// error names the key and the kinds, never the value.
func decodeValue(key string, raw json.RawMessage, dst any) error {
	if err := json.Unmarshal(raw, dst); err != nil {
		if hint := unresolvedHint(key, raw); hint != "" {
			return Errorf(EINVALID, "%s", hint)
		}
		var fe *fieldsError
		if errors.As(err, &fe) {
			return Errorf(EINVALID, "%s", fe.msg)
		}
		return Errorf(EINVALID, "field %q must be %s, not %s", key, wantKind(dst), kindOfValue(raw))
	}
	return nil
}

// unresolvedHint explains a string where the key wants another kind (an
// array, a number, true or false) when the string is an unresolved path.
func unresolvedHint(key string, raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil || !unresolved(s) {
		return ""
	}
	return fmt.Sprintf("%s holds %s, which Step Functions passed on unresolved: %s", key, describeUnresolved(s), resolveHint(key))
}

func wantKind(dst any) string {
	switch dst.(type) {
	case *string, *TaskToken:
		return "a string"
	case *[]string:
		return "an array of strings"
	case *bool, **bool:
		return "true or false"
	case *int64, **int64:
		return "a whole number"
	case *Fields:
		return "an object of label: value strings"
	}
	return fmt.Sprintf("%T", dst)
}

// kindOfValue names the JSON kind of a raw value; for an array, the kind
// of its first element that is not a string (without looking further into
// that element, so the name stays short and the cost one pass).
func kindOfValue(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) == nil {
			for i, e := range elems {
				if k := scalarKind(e); k != "a string" {
					return fmt.Sprintf("an array whose element %d is %s", i+1, k)
				}
			}
		}
		return "an array"
	}
	return scalarKind(raw)
}

// scalarKind names the JSON kind of a raw value from its first byte (and,
// for a number, whether it has a fraction or exponent).
func scalarKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	if bytes.ContainsAny(raw, ".eE") {
		return "a number with a fraction or exponent"
	}
	return "a number"
}

func kindOfToken(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "true or false"
	}
	return "a number"
}

// editDistance is the Levenshtein distance between two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
