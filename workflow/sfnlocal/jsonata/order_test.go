package jsonata

import (
	"testing"

	"github.com/sfnapprovals/approvals/workflow/sfnlocal/internal/jsonvalue"
)

// TestMemberOrder checks which objects keep their member order through an
// evaluation: template objects and objects an expression selects unchanged
// do; objects an expression builds come back sorted, because the library
// keeps them in Go maps.
func TestMemberOrder(t *testing.T) {
	t.Parallel()
	vars := Vars{"states": decode(t, `{"input": {"fields": {"Zeta": "1", "Alpha": {"y": 2, "b": 3}}, "list": [{"z": 1, "a": 2}]}}`)}
	tests := []struct {
		name, template, want string
	}{
		{"template order", `{"zeta": "{% 1 %}", "alpha": "x", "mid": {"y": 1, "b": "{% 2 %}"}}`,
			`{"zeta":1,"alpha":"x","mid":{"y":1,"b":2}}`},
		{"selected object", `{"fields": "{% $states.input.fields %}"}`,
			`{"fields":{"Zeta":"1","Alpha":{"y":2,"b":3}}}`},
		{"selected nested object", `"{% $states.input.fields.Alpha %}"`, `{"y":2,"b":3}`},
		{"selected array of objects", `"{% $states.input.list[z = 1] %}"`, `{"z":1,"a":2}`},
		{"whole input", `"{% $states.input %}"`,
			`{"fields":{"Zeta":"1","Alpha":{"y":2,"b":3}},"list":[{"z":1,"a":2}]}`},
		{"built object is sorted", `"{% {'b': 1, 'a': $states.input.list[0]} %}"`, `{"a":{"z":1,"a":2},"b":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Template(decode(t, tt.template), vars)
			if err != nil {
				t.Fatal(err)
			}
			if g := jsonvalue.Encode(got); g != tt.want {
				t.Errorf("got  %s\nwant %s", g, tt.want)
			}
		})
	}
}

// TestTemplateReportsTheFirstFailureInTemplateOrder checks that the field
// named in an error is the first failing one as written.
func TestTemplateReportsTheFirstFailureInTemplateOrder(t *testing.T) {
	t.Parallel()
	_, err := TemplateField("Output", decode(t, `{"b": "{% $x %}", "a": "{% $y %}"}`), nil)
	want := "The JSONata expression '$x' specified for the field 'Output/b' returned nothing (undefined)."
	if e, ok := err.(*Error); !ok || e.Message != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}
