package jsonata

import (
	"sync"
	"testing"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// The evaluator shares the engine's objects and arrays instead of copying
// them, so it must never change them. Goroutines evaluate expressions that
// build on $states.input (transforms, $merge, $append, $sort, $reverse…)
// over one shared input: under the race detector a write to it fails the
// test, and the input must read the same afterwards.
func TestEvaluationLeavesInputAlone(t *testing.T) {
	t.Parallel()
	const text = `{"order": {"id": "o1", "tags": ["b", "a"], "lines": [{"sku": "x", "note": "n"}, {"sku": "y", "note": "m"}]},
		"names": ["c", "a", "b"], "meta": {"k": "v"}}`
	input := decode(t, text)
	template := decode(t, `{
		"transform": "{% $states.input ~> |order|{'id': 'changed', 'extra': true}, ['tags']| %}",
		"deep": "{% $states.input.order ~> |lines|{'sku': 'z'}, 'note'| %}",
		"merge": "{% $merge([$states.input.meta, {'k': 'w'}, $states.input.order]) %}",
		"append": "{% $append($states.input.names, 'd') %}",
		"sort": "{% $sort($states.input.names) %}",
		"reverse": "{% $reverse($states.input.order.tags) %}",
		"distinct": "{% $distinct($states.input.names) %}",
		"sift": "{% $sift($states.input.meta, function($v) { false }) ? 1 : 0 %}",
		"spread": "{% $spread($states.input.meta) %}",
		"shuffle": "{% $count($shuffle($states.input.names)) %}",
		"group": "{% $states.input.order.lines{sku: note} %}",
		"identity clone": "{% ($clone := function($x){$x}; $states.input ~> |meta|{'k':'w'}|) %}",
		"partial clone": "{% ($clone := $lookup(?, 'order'); $states.input ~> |lines|{'sku':'z'}, 'note'|) %}"
	}`)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 20 {
				if _, err := Template(t.Context(), template, Env{Vars: Vars{"states": jsonvalue.ObjectOf("input", input)}}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got, want := jsonvalue.Encode(input), jsonvalue.Encode(decode(t, text)); got != want {
		t.Errorf("input changed:\n got %s\nwant %s", got, want)
	}
}
