package jsonata

import (
	"encoding/json"
	"testing"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// toLang shares what holds no number and copies only the path to each
// number, leaving the engine's value as it was.
func TestToLangSharesWhatNeedsNoConversion(t *testing.T) {
	t.Parallel()
	text := `{"meta": {"k": "v", "list": ["a", null, true]}, "count": 3, "lines": [{"sku": "x"}, {"qty": 2}]}`
	in := decode(t, text).(*jsonvalue.Object)
	v, err := toLang(in)
	if err != nil {
		t.Fatal(err)
	}
	out := v.(*jsonvalue.Object)
	if out == in {
		t.Fatal("an object holding a number was not copied")
	}
	member := func(o *jsonvalue.Object, k string) any { x, _ := o.Get(k); return x }
	if member(out, "meta") != member(in, "meta") {
		t.Error("an object without numbers was copied")
	}
	if got := member(out, "count"); got != 3.0 {
		t.Errorf("count = %#v, want float64 3", got)
	}
	inLines, outLines := member(in, "lines").([]any), member(out, "lines").([]any)
	if &inLines[0] == &outLines[0] {
		t.Error("an array holding a number was not copied")
	}
	if outLines[0] != inLines[0] {
		t.Error("an object without numbers inside a copied array was copied")
	}
	if got := member(outLines[1].(*jsonvalue.Object), "qty"); got != 2.0 {
		t.Errorf("qty = %#v, want float64 2", got)
	}
	if got := jsonvalue.Encode(in); got != jsonvalue.Encode(decode(t, text)) {
		t.Errorf("toLang changed its input: %s", got)
	}
	if got := member(in, "count"); got != json.Number("3") {
		t.Errorf("input count = %#v, want json.Number 3", got)
	}
}
