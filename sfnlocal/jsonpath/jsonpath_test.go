package jsonpath

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

func doc(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonvalue.Decode([]byte(s))
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// text is v's JSON text, members in order, for exact comparisons.
func text(v any) string { return jsonvalue.Encode(v) }

const store = `{
  "a": {"b": "x", "c d": 1, "e": [1, 2, 3]},
  "items": [
    {"id": 1, "name": "one", "price": 8.95, "tags": ["x"]},
    {"id": 2, "name": "two", "price": 12.99},
    {"id": 3, "name": "Three", "price": 8, "on": true}
  ],
  "n": null,
  "limit": 10
}`

func TestGet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		want string
	}{
		{"$", store},
		{"$.a.b", `"x"`},
		{"$['a']['c d']", `1`},
		{`$["a"].b`, `"x"`},
		{"$.a.e[0]", `1`},
		{"$.a.e[-1]", `3`},
		{"$.n", `null`},
		{"$.a.e[1:]", `[2, 3]`},
		{"$.a.e[:2]", `[1, 2]`},
		{"$.a.e[-2:]", `[2, 3]`},
		{"$.a.e[::2]", `[1, 3]`},
		{"$.a.e[0,2]", `[1, 3]`},
		{"$.a.e[*]", `[1, 2, 3]`},
		{"$.items[*].id", `[1, 2, 3]`},
		{"$.items[*].on", `[true]`},
		{"$..id", `[1, 2, 3]`},
		{"$..tags[0]", `["x"]`},
		{"$.a.*", `["x", 1, [1, 2, 3]]`},
		{"$.items[?(@.id == 2)].name", `["two"]`},
		{"$.items[?(@.price < 10)].id", `[1, 3]`},
		{"$.items[?(@.price >= 8.95)].id", `[1, 2]`},
		{"$.items[?(@.price == 8.00)].id", `[3]`},
		{"$.items[?(@.on)].id", `[3]`},
		{"$.items[?(!@.on)].id", `[1, 2]`},
		{"$.items[?(@.name != 'one')].id", `[2, 3]`},
		{"$.items[?(@.name =~ /t.*/i)].id", `[2, 3]`},
		{"$.items[?(@.id > 1 && @.price < 10)].id", `[3]`},
		{"$.items[?(@.id == 1 || (@.on == true))].id", `[1, 3]`},
		{"$.items[?(@.price < $.limit)].id", `[1, 3]`},
		{"$.items[?(@.id == 9)]", `[]`},
		{"$.items[*].missing", `[]`},
		// An indefinite path over missing members selects nothing, as on
		// AWS ("item.$": "$.items[*]" over {} is []).
		{"$.missing[*]", `[]`},
		{"$.missing.x[*]", `[]`},
		{"$.missing[1:]", `[]`},
		{"$.a[?(@.b == 'x')].b", `["x"]`},
	}
	in := doc(t, store)
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			got, err := Get(in, tt.path)
			if err != nil {
				t.Fatalf("Get(%q): %v", tt.path, err)
			}
			if diff := cmp.Diff(text(doc(t, tt.want)), text(got)); diff != "" {
				t.Errorf("Get(%q) (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

// A definite path that selects nothing says why as AWS's JSONPath library
// does, naming the path in its normalized form.
func TestNoMatchReason(t *testing.T) {
	t.Parallel()
	tests := []struct{ path, want string }{
		{"$.missing", "No results for path: $['missing']"},
		{"$.no.x", "Missing property in path $['no']"},
		{"$.a.no.x", "Missing property in path $['a']['no']"},
		{"$.a.e[3]", "No results for path: $['a']['e'][3]"},
		{"$['no'].x", "Missing property in path $['no']"},
	}
	in := doc(t, store)
	for _, tt := range tests {
		_, err := Get(in, tt.path)
		var nm *NoMatchError
		if !errors.As(err, &nm) || nm.Reason != tt.want {
			t.Errorf("Get(%q) error = %v (%+v), want reason %q", tt.path, err, nm, tt.want)
		}
	}
}

func TestGetErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path    string
		noMatch bool
	}{
		{"$.missing", true},
		{"$.a.b.c", true},
		{"$.a.e[3]", true},
		{"$.a.e[-4]", true},
		{"a.b", false},
		{"$.", false},
		{"$.a[", false},
		{"$.a[?(@.x ==)]", false},
		{"$[abc]", false},
		{"$.a b", false},
		{"$.a[1:2:0]", false},
	}
	in := doc(t, store)
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			_, err := Get(in, tt.path)
			var nm *NoMatchError
			var se *SyntaxError
			if tt.noMatch && !errors.As(err, &nm) {
				t.Errorf("Get(%q) error = %v, want *NoMatchError", tt.path, err)
			}
			if !tt.noMatch && !errors.As(err, &se) {
				t.Errorf("Get(%q) error = %v, want *SyntaxError", tt.path, err)
			}
		})
	}
}

func TestIsReferencePath(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"$": true, "$.a.b": true, "$['a b'].c": true, "$.a[0].b": true,
		"$.a[-1]": false, "$.a[*]": false, "$..a": false, "$.a[0,1]": false,
		"$.a[1:]": false, "$.a[?(@.x)]": false, "$$.Execution": false, "$var": false, "a": false,
	}
	for path, want := range tests {
		if got := IsReferencePath(path); got != want {
			t.Errorf("IsReferencePath(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path      string
		reference bool
		ok        bool
	}{
		{"$.a[*].b", false, true},
		{"$$.Execution.Input", false, true},
		{"$myVar.x[0]", false, true},
		{"$myVar", false, true},
		{"$.a[*].b", true, false},
		{"$.a.b", true, true},
		{"$$.Task.Token", true, false},
		{"$.a[", false, false},
		{"$-x", false, false},
	}
	for _, tt := range tests {
		err := Validate(tt.path, tt.reference)
		if (err == nil) != tt.ok {
			t.Errorf("Validate(%q, %v) = %v, want ok=%v", tt.path, tt.reference, err, tt.ok)
		}
	}
}

func TestSet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, path, value, want string
	}{
		{"replace root", `{"a":1}`, "$", `{"r":true}`, `{"r":true}`},
		{"new key", `{"a":1}`, "$.b", `2`, `{"a":1,"b":2}`},
		{"overwrite", `{"a":{"b":1,"c":2}}`, "$.a.b", `"x"`, `{"a":{"b":"x","c":2}}`},
		{"creates parents", `{"a":1}`, "$.x.y.z", `true`, `{"a":1,"x":{"y":{"z":true}}}`},
		{"quoted name", `{}`, "$['a b']", `null`, `{"a b":null}`},
		{"array index", `{"a":[1,{"b":2}]}`, "$.a[1].b", `3`, `{"a":[1,{"b":3}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := doc(t, tt.in)
			got, err := Set(in, tt.path, doc(t, tt.value))
			if err != nil {
				t.Fatalf("Set: %v", err)
			}
			if diff := cmp.Diff(text(doc(t, tt.want)), text(got)); diff != "" {
				t.Errorf("Set (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(text(doc(t, tt.in)), text(in)); diff != "" {
				t.Errorf("Set mutated its input (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, path string
		result   bool
	}{
		{`{"a":"s"}`, "$.a.b", true},
		{`"s"`, "$.a", true},
		{`{"a":null}`, "$.a.b", true},
		{`{"a":[1]}`, "$.a[3]", true},
		{`{"a":[1]}`, "$.a.b", true},
		{`{}`, "$.a[*]", false},
		{`{}`, "$..a", false},
		{`{}`, "$$.a", false},
	}
	for _, tt := range tests {
		_, err := Set(doc(t, tt.in), tt.path, "v")
		var rp *ResultPathError
		var se *SyntaxError
		if tt.result && !errors.As(err, &rp) {
			t.Errorf("Set(%s, %q) error = %v, want *ResultPathError", tt.in, tt.path, err)
		}
		if !tt.result && !errors.As(err, &se) {
			t.Errorf("Set(%s, %q) error = %v, want *SyntaxError", tt.in, tt.path, err)
		}
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	input := doc(t, `{"x":1,"list":[1,2]}`)
	ctx := doc(t, `{"Execution":{"Name":"run-1"},"Task":{"Token":"tok"}}`)
	vars := map[string]any{"myVar": doc(t, `{"x":{"y":"v"}}`), "n": json.Number("5")}
	tests := []struct {
		path string
		want any
	}{
		{"$", input},
		{"$.x", json.Number("1")},
		{"$.list[*]", []any{json.Number("1"), json.Number("2")}},
		{"$$.Task.Token", "tok"},
		{"$$", ctx},
		{"$myVar.x.y", "v"},
		{"$myVar['x']", jsonvalue.ObjectOf("y", "v")},
		{"$n", json.Number("5")},
	}
	for _, tt := range tests {
		got, err := Resolve(tt.path, input, ctx, vars)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.path, err)
			continue
		}
		if diff := cmp.Diff(text(tt.want), text(got)); diff != "" {
			t.Errorf("Resolve(%q) (-want +got):\n%s", tt.path, diff)
		}
	}
	for _, path := range []string{"$undefined", "$myVar.missing", "$$.Nope"} {
		var nm *NoMatchError
		if _, err := Resolve(path, input, ctx, vars); !errors.As(err, &nm) || nm.Path != path {
			t.Errorf("Resolve(%q) error = %v, want *NoMatchError for the path", path, err)
		}
	}
}

func TestTemplate(t *testing.T) {
	t.Parallel()
	input := doc(t, `{"name":"Ada","items":[1,2]}`)
	resolve := func(p string) (any, error) { return Resolve(p, input, jsonvalue.ObjectOf("Token", "t"), nil) }
	intrinsic := func(e string) (any, error) { return "called " + e, nil }
	tmpl := doc(t, `{
	  "static": {"k": [1, "$.name"]},
	  "name.$": "$.name",
	  "token.$": "$$.Token",
	  "f.$": "States.Format('{}', $.name)",
	  "nested": {"all.$": "$.items[*]", "list": [{"n.$": "$.name"}, 3]}
	}`)
	want := doc(t, `{
	  "static": {"k": [1, "$.name"]},
	  "name": "Ada",
	  "token": "t",
	  "f": "called States.Format('{}', $.name)",
	  "nested": {"all": [1, 2], "list": [{"n": "Ada"}, 3]}
	}`)
	got, err := Template(tmpl, resolve, intrinsic)
	if err != nil {
		t.Fatalf("Template: %v", err)
	}
	if diff := cmp.Diff(text(want), text(got)); diff != "" {
		t.Errorf("Template (-want +got):\n%s", diff)
	}
}

func TestTemplateErrors(t *testing.T) {
	t.Parallel()
	resolve := func(p string) (any, error) { return Resolve(p, jsonvalue.NewObject(0), nil, nil) }
	tests := []struct {
		tmpl, field string
		noMatch     bool
	}{
		{`{"a": {"b.$": "$.missing"}}`, "b.$", true},
		{`{"b.$": 1}`, "b.$", false},
		{`{"b.$": "plain"}`, "b.$", false},
		{`{"b.$": "$.x", "b": 1}`, "b.$", false},
	}
	for _, tt := range tests {
		_, err := Template(doc(t, tt.tmpl), resolve, nil)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field {
			t.Errorf("Template(%s) error = %v, want *FieldError for %q", tt.tmpl, err, tt.field)
			continue
		}
		var nm *NoMatchError
		if got := errors.As(err, &nm); got != tt.noMatch {
			t.Errorf("Template(%s) wraps *NoMatchError = %v, want %v", tt.tmpl, got, tt.noMatch)
		}
	}
}
