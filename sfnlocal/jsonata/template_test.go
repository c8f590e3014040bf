package jsonata

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTemplate(t *testing.T) {
	t.Parallel()
	vars := stateVars(t)
	tests := []struct {
		name     string
		template string
		want     string
	}{
		{"AWS's Arguments example",
			`{"static": "Hello", "title": "{% $states.input.title %}", "name": "{% $customerName %}", "not-evaluated": "$customerName"}`,
			`{"static": "Hello", "title": "Doctor", "name": "María", "not-evaluated": "$customerName"}`},
		{"nested objects and arrays",
			`{"order": {"ids": ["{% $states.input.orders[0].id %}", "x", "{% $states.input.count %}"], "deep": [[{"v": "{% $states.input.price %}"}]]},
			  "n": 1.50, "b": false, "nil": null, "text": "{% not an expression"}`,
			`{"order": {"ids": ["a", "x", 3], "deep": [[{"v": 2.5}]]}, "n": 1.50, "b": false, "nil": null, "text": "{% not an expression"}`},
		{"whole value is one expression",
			`"{% $states.input.orders[qty > 1] %}"`,
			`[{"id": "a", "qty": 2, "price": 10}, {"id": "c", "qty": 5, "price": 3}]`},
		{"expression yielding null is kept",
			`{"note": "{% $states.input.note %}"}`,
			`{"note": null}`},
		{"Assign", `{"total": "{% $sum($states.input.orders.qty) %}", "token": "{% $states.context.Task.Token %}"}`,
			`{"total": 8, "token": "tok-123"}`},
		{"condition", `"{% $states.input.count > $limit %}"`, `false`},
		{"number literal untouched", `12345678901234567890`, `12345678901234567890`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Template(t.Context(), decode(t, tt.template), Env{Vars: vars})
			if err != nil {
				t.Fatalf("Template: %v", err)
			}
			if diff := cmp.Diff(decode(t, tt.want), got, asText); diff != "" {
				t.Errorf("Template (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTemplateFieldErrors(t *testing.T) {
	t.Parallel()
	vars := stateVars(t)
	tests := []struct {
		name, field, template, want, location string
	}{
		{"undefined in Output", "Output", `{"v": "{% $states.input.missing %}"}`,
			"The JSONata expression '$states.input.missing' specified for the field 'Output/v' returned nothing (undefined).", "Output/v"},
		{"nested array position", "Arguments", `{"a": {"b": [1, ["{% 1 %}", "{% $x %}"]]}}`,
			"The JSONata expression '$x' specified for the field 'Arguments/a/b[1][1]' returned nothing (undefined).", "Arguments/a/b[1][1]"},
		{"whole field", "Choices[0]/Condition", `"{% $states.input.title * 2 %}"`,
			`The JSONata expression '$states.input.title * 2' specified for the field 'Choices[0]/Condition' threw an error during evaluation. T2001: The left side of the "*" operator must evaluate to a number`, "Choices[0]/Condition"},
		{"unnamed field", "", `{"a": ["{% $nope %}"]}`,
			"The JSONata expression '$nope' specified for the field 'a[0]' returned nothing (undefined).", "a[0]"},
		{"function result", "Items", `"{% $fn := function($x){$x} %}"`,
			"The JSONata expression '$fn := function($x){$x}' specified for the field 'Items' returned an unsupported result type.", "Items"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := TemplateField(t.Context(), tt.field, decode(t, tt.template), Env{Vars: vars})
			var got *Error
			if !errors.As(err, &got) {
				t.Fatalf("TemplateField error = %v, want *Error", err)
			}
			want := &Error{Name: "States.QueryEvaluationError", Message: tt.want, Field: tt.location}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("TemplateField error (-want +got):\n%s", diff)
			}
		})
	}
}

// Template must not change the value it walks.
func TestTemplateLeavesInputAlone(t *testing.T) {
	t.Parallel()
	template := decode(t, `{"a": ["{% 1 + 1 %}"], "b": {"c": "{% 'x' %}"}}`)
	before := decode(t, `{"a": ["{% 1 + 1 %}"], "b": {"c": "{% 'x' %}"}}`)
	if _, err := Template(t.Context(), template, Env{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, template, asText); diff != "" {
		t.Errorf("template changed (-before +after):\n%s", diff)
	}
}

func TestTemplateRejectsNonJSONVariables(t *testing.T) {
	t.Parallel()
	_, err := Template(t.Context(), "{% $v %}", Env{Vars: Vars{"v": struct{}{}}})
	var e *Error
	if !errors.As(err, &e) || e.Name != "States.QueryEvaluationError" {
		t.Errorf("Template with a struct variable: error = %v, want a States.QueryEvaluationError", err)
	}
	if got, err := Template(t.Context(), "{% $v %}", Env{Vars: Vars{"v": json.Number("1.0")}}); err != nil || got != json.Number("1") {
		t.Errorf("Template($v = 1.0) = %v, %v; want 1", got, err)
	}
}

// TestTemplateJSONata2 checks syntax and results of JSONata 2.x through
// Template: the # (position) and @ (context) bindings, the % parent
// operator, and a path to an empty array, which yields [] (answers from
// jsonata-js 2.0.6).
func TestTemplateJSONata2(t *testing.T) {
	t.Parallel()
	vars := Vars{"states": decode(t, `{"input": {
		"orders": [{"id": "a", "items": [{"sku": "s1"}, {"sku": "s2"}]}, {"id": "b", "items": [{"sku": "s3"}]}],
		"none": [], "empty": [{"id": "e", "items": []}]}}`)}
	tests := []struct {
		name, template, want string
	}{
		{"position binding", `{"v": "{% $states.input.orders#$i.{'id': id, 'pos': $i} %}"}`,
			`{"v": [{"id": "a", "pos": 0}, {"id": "b", "pos": 1}]}`},
		{"position in a predicate", `["{% $states.input.orders#$i[$i > 0].id %}"]`, `["b"]`},
		{"context binding", `{"v": "{% $states.input.orders@$o.$o.items.{'order': $o.id, 'sku': sku} %}"}`,
			`{"v": [{"order": "a", "sku": "s1"}, {"order": "a", "sku": "s2"}, {"order": "b", "sku": "s3"}]}`},
		{"parent operator", `{"v": "{% $states.input.orders.items.{'sku': sku, 'order': %.id} %}"}`,
			`{"v": [{"sku": "s1", "order": "a"}, {"sku": "s2", "order": "a"}, {"sku": "s3", "order": "b"}]}`},
		{"empty array", `{"v": "{% $states.input.none %}"}`, `{"v": []}`},
		{"empty array down a path", `{"v": "{% $states.input.empty.items %}"}`, `{"v": []}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Template(t.Context(), decode(t, tt.template), Env{Vars: vars})
			if err != nil {
				t.Fatalf("Template: %v", err)
			}
			if diff := cmp.Diff(decode(t, tt.want), got, asText); diff != "" {
				t.Errorf("Template (-want +got):\n%s", diff)
			}
		})
	}
}
