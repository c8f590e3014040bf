package jsonata

import (
	"testing"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// TestMemberOrder checks that objects keep their member order through an
// evaluation, whether the template writes them, an expression selects
// them or an expression builds them.
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
		{"built object", `"{% {\"b\": 1, \"a\": 2} %}"`, `{"b":1,"a":2}`},
		{"built object holding a selected one", `"{% {'b': 1, 'a': $states.input.list[0]} %}"`, `{"b":1,"a":{"z":1,"a":2}}`},
		{"merge", `"{% $merge([$states.input.fields.Alpha, {'x': 0, 'y': 9}]) %}"`, `{"y":9,"b":3,"x":0}`},
		{"keys", `"{% $keys($states.input.fields) %}"`, `["Zeta","Alpha"]`},
		{"wildcard", `"{% $states.input.fields.Alpha.* %}"`, `[2,3]`},
		{"spread", `"{% $spread($states.input.fields.Alpha) %}"`, `[{"y":2},{"b":3}]`},
		{"each", `"{% $each($states.input.fields.Alpha, function($v, $k) { $k }) %}"`, `["y","b"]`},
		{"transform", `"{% $states.input.fields ~> |Alpha|{'c': 4}| %}"`, `{"Zeta":"1","Alpha":{"y":2,"b":3,"c":4}}`},
		{"group by", `"{% $states.input.list{'k2': a, 'k1': z} %}"`, `{"k2":2,"k1":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Template(t.Context(), decode(t, tt.template), Env{Vars: vars})
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
	_, err := TemplateField(t.Context(), "Output", decode(t, `{"b": "{% $x %}", "a": "{% $y %}"}`), Env{})
	want := "The JSONata expression '$x' specified for the field 'Output/b' returned nothing (undefined)."
	if e, ok := err.(*Error); !ok || e.Message != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}
