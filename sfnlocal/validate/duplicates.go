package validate

import (
	"bytes"
	"encoding/json"
)

// duplicates reports a state name given twice in one States object. Decoding
// into a map keeps only the last of them, so this reads the raw tokens.
func (c *checker) duplicates(definition []byte) {
	type frame struct {
		object    bool
		loc, name string // where the container is, and the key it sits under
		seen      map[string]bool
		key       string
		index     int
		wantKey   bool
	}
	var stack []*frame
	// next returns the location and key of the value about to be read.
	next := func() (string, string) {
		if len(stack) == 0 {
			return "", ""
		}
		f := stack[len(stack)-1]
		if f.object {
			f.wantKey = true
			return child(f.loc, f.key), f.key
		}
		f.index++
		return index(f.loc, f.index-1), ""
	}
	dec := json.NewDecoder(bytes.NewReader(definition))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			if key, ok := tok.(string); ok {
				f := stack[n-1]
				if f.name == "States" && f.seen[key] {
					c.add(SeverityError, CodeDuplicateStateName, child(f.loc, key), "Duplicate State name: %s", key)
				}
				f.seen[key], f.key, f.wantKey = true, key, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			loc, name := next()
			stack = append(stack, &frame{object: tok == json.Delim('{'), loc: loc, name: name,
				seen: map[string]bool{}, wantKey: true})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			next()
		}
	}
}
