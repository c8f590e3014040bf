package sfnlocal

import (
	"fmt"
	"strings"
	"testing"
)

// TestSharedValuesAreNotMutated runs Parallel branches and Map iterations
// that all receive the same objects and each write into them (ResultPath,
// JsonMerge, Assign). Under the race detector an in-place change to a
// shared value fails the test; without it, the outputs and the execution
// input show whether one branch saw another's write.
func TestSharedValuesAreNotMutated(t *testing.T) {
	t.Parallel()
	const branches, items = 8, 30
	var b strings.Builder
	for i := range branches {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"StartAt":"W%[1]d","States":{
			"W%[1]d":{"Type":"Pass","Result":%[1]d,"ResultPath":"$.shared.x","Next":"D%[1]d"},
			"D%[1]d":{"Type":"Pass","Result":"b%[1]d","ResultPath":"$.shared.deep.k","Next":"M%[1]d"},
			"M%[1]d":{"Type":"Pass","Parameters":{"m.$":"States.JsonMerge($.shared, $.other, false)"},"OutputPath":"$.m","End":true}}}`, i)
	}
	def := fmt.Sprintf(`{"StartAt":"P","States":{
		"P":{"Type":"Parallel","ResultPath":"$.branches","Branches":[%s],"Next":"Map"},
		"Map":{"Type":"Map","ItemsPath":"$.list","ItemSelector":{"s.$":"$.shared","i.$":"$$.Map.Item.Index","item.$":"$$.Map.Item.Value"},
			"ItemProcessor":{"StartAt":"I","States":{
				"I":{"Type":"Pass","InputPath":"$.i","ResultPath":"$.s.x","Next":"J"},
				"J":{"Type":"Pass","Assign":{"mine.$":"$.s"},"Next":"L"},
				"L":{"Type":"Pass","InputPath":"$.i","ResultPath":"$.item.n","Next":"K"},
				"K":{"Type":"Pass","Parameters":{"s.$":"$mine","n.$":"$.item.n"},"End":true}}},
			"ResultPath":"$.mapped","Next":"Check"},
		"Check":{"Type":"Pass","Parameters":{"input.$":"$$.Execution.Input","shared.$":"$.shared","branches.$":"$.branches","mapped.$":"$.mapped"},"End":true}}}`, b.String())
	list := make([]string, items)
	for i := range list {
		list[i] = `{"n":-1}`
	}
	input := `{"shared":{"x":"orig","deep":{"k":"orig"}},"other":{"o":1},"list":[` + strings.Join(list, ",") + `]}`

	h := newHarness(t)
	out := succeeded(t, h.run(def, input))

	var want strings.Builder
	fmt.Fprintf(&want, `{"input":%s,"shared":{"x":"orig","deep":{"k":"orig"}},"branches":[`, input)
	for i := range branches {
		if i > 0 {
			want.WriteString(",")
		}
		fmt.Fprintf(&want, `{"x":%d,"deep":{"k":"b%d"},"o":1}`, i, i)
	}
	want.WriteString(`],"mapped":[`)
	for i := range items {
		if i > 0 {
			want.WriteString(",")
		}
		fmt.Fprintf(&want, `{"s":{"x":%d,"deep":{"k":"orig"}},"n":%d}`, i, i)
	}
	want.WriteString(`]}`)
	exact(t, "output", out, want.String())
}
