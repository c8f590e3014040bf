package jsonpath

import (
	"testing"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// TestMemberOrder checks that objects keep their members' order through
// every operation, as Step Functions keeps them.
func TestMemberOrder(t *testing.T) {
	t.Parallel()
	const in = `{"z":{"y":1,"b":2},"a":[{"k":3}],"m":{"k":4,"c":{"k":5}}}`
	resolve := func(p string) (any, error) { return Resolve(p, doc(t, in), nil, nil) }
	tests := []struct {
		name string
		run  func() (any, error)
		want string
	}{
		{"wildcard", func() (any, error) { return Get(doc(t, in), "$.*") },
			`[{"y":1,"b":2},[{"k":3}],{"k":4,"c":{"k":5}}]`},
		{"descendants", func() (any, error) { return Get(doc(t, in), "$..k") }, `[3,4,5]`},
		{"get keeps the object", func() (any, error) { return Get(doc(t, in), "$.z") }, `{"y":1,"b":2}`},
		{"set replaces in place", func() (any, error) { return Set(doc(t, in), "$.z", "new") },
			`{"z":"new","a":[{"k":3}],"m":{"k":4,"c":{"k":5}}}`},
		{"set appends a new key", func() (any, error) { return Set(doc(t, in), "$.m.b", true) },
			`{"z":{"y":1,"b":2},"a":[{"k":3}],"m":{"k":4,"c":{"k":5},"b":true}}`},
		{"set replaces a nested key in place", func() (any, error) { return Set(doc(t, `{"b":1,"a":{"z":1,"y":2}}`), "$.a.z", 0) },
			`{"b":1,"a":{"z":0,"y":2}}`},
		{"set creates parents in path order", func() (any, error) { return Set(doc(t, `{"b":1}`), "$.q.p", 1) },
			`{"b":1,"q":{"p":1}}`},
		{"template keeps the template order, .$ keys in their place", func() (any, error) {
			return Template(doc(t, `{"zeta":1,"mid.$":"$.z","alpha":{"y":0,"x.$":"$.a[0].k"},"beta.$":"$.m"}`), resolve, nil)
		}, `{"zeta":1,"mid":{"y":1,"b":2},"alpha":{"y":0,"x":3},"beta":{"k":4,"c":{"k":5}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.run()
			if err != nil {
				t.Fatal(err)
			}
			if g := jsonvalue.Encode(got); g != tt.want {
				t.Errorf("got  %s\nwant %s", g, tt.want)
			}
		})
	}
}

// TestFilterEqualityIgnoresMemberOrder checks that == and != in filters
// compare objects by content.
func TestFilterEqualityIgnoresMemberOrder(t *testing.T) {
	t.Parallel()
	in := doc(t, `{"ref":{"b":2,"a":1},"items":[
		{"id":1,"o":{"a":1,"b":2}},{"id":2,"o":{"b":2,"a":1.0}},{"id":3,"o":{"a":1}},{"id":4,"o":{"a":1,"b":2,"c":3}}]}`)
	for path, want := range map[string]string{
		"$.items[?(@.o == $.ref)].id": `[1,2]`,
		"$.items[?(@.o != $.ref)].id": `[3,4]`,
	} {
		got, err := Get(in, path)
		if err != nil {
			t.Fatalf("Get(%s): %v", path, err)
		}
		if g := jsonvalue.Encode(got); g != want {
			t.Errorf("Get(%s) = %s, want %s", path, g, want)
		}
	}
}
