package validate

import (
	"fmt"
	"sort"
	"strconv"
)

// express is the state machine type that refuses callbacks and .sync jobs.
const express = "EXPRESS"

// Query languages.
const (
	jsonPath = "JSONPath"
	jsonata  = "JSONata"
)

// checker walks one definition and collects its diagnostics.
type checker struct {
	diags []Diagnostic
	// topQL is the machine's query language, which every state inherits,
	// even inside Parallel branches and Map processors (measured on AWS).
	topQL string
	// names and labels are seen across the whole machine: state names and
	// Map labels must be unique in all of it.
	names  map[string]bool
	labels map[string]bool
	// express is set for an EXPRESS machine, which runs no callbacks.
	express bool
}

func newChecker() *checker {
	return &checker{names: map[string]bool{}, labels: map[string]bool{}}
}

func (c *checker) add(severity, code, loc, format string, args ...any) {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	c.diags = append(c.diags, Diagnostic{Severity: severity, Code: code, Message: msg, Location: loc})
}

// schema records a SCHEMA_VALIDATION_FAILED error.
func (c *checker) schema(loc, format string, args ...any) {
	c.add(SeverityError, CodeSchema, loc, format, args...)
}

func (c *checker) warn(code, loc, format string, args ...any) {
	c.add(SeverityWarning, code, loc, format, args...)
}

// child is loc extended by an object key.
func child(loc, key string) string { return loc + "/" + key }

// index is loc extended by an array index, AWS style: "Choices[0]".
func index(loc string, i int) string { return loc + "[" + strconv.Itoa(i) + "]" }

// sortedKeys gives map keys in a stable order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func has(obj map[string]any, key string) bool {
	_, ok := obj[key]
	return ok
}

// typeName names a JSON value's type the way AWS's messages do.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "STRING"
	case bool:
		return "BOOLEAN"
	case map[string]any:
		return "OBJECT"
	case []any:
		return "ARRAY"
	case nil:
		return "NULL"
	default:
		return "NUMBER"
	}
}

// expectType reports a value of the wrong JSON type; want is a typeName.
func (c *checker) expectType(loc string, v any, want string) bool {
	if typeName(v) == want {
		return true
	}
	c.schema(loc, "Expected value of type [%s]", want)
	return false
}

// onlyOne reports, at the location at, that more than one of a set of
// exclusive fields is set. It returns how many are present.
func (c *checker) onlyOne(obj map[string]any, at string, fields ...string) int {
	n := 0
	for _, f := range fields {
		if has(obj, f) {
			n++
		}
	}
	if n > 1 {
		c.schema(at, "There should only be one of the following fields: %s", list(fields))
	}
	return n
}

// required reports missing required fields, all in one diagnostic.
func (c *checker) required(obj map[string]any, loc string, fields ...string) bool {
	var missing []string
	for _, f := range fields {
		if !has(obj, f) {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return true
	}
	if loc == "" {
		loc = "/"
	}
	c.schema(loc, "These fields are required: %s", list(missing))
	return false
}

// enum reports a string outside its allowed values.
func (c *checker) enum(loc string, v any, values ...string) bool {
	if !c.expectType(loc, v, "STRING") {
		return false
	}
	for _, ok := range values {
		if v == ok {
			return true
		}
	}
	c.schema(loc, "Value should be one of the following: %s", list(values))
	return false
}

func list(items []string) string {
	s := "["
	for i, it := range items {
		if i > 0 {
			s += ", "
		}
		s += it
	}
	return s + "]"
}
