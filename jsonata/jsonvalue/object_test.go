package jsonvalue

import (
	"encoding/json"
	"testing"
)

func TestDecodeKeepsOrder(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"z":1,"a":{"y":[1,{"c":2,"b":3}],"x":null},"m":"&<>"}`, `{"z":1,"a":{"y":[1,{"c":2,"b":3}],"x":null},"m":"&<>"}`},
		{`{"b":1,"a":2,"b":3}`, `{"b":3,"a":2}`},
		{` [ ] `, `[]`},
		{`{}`, `{}`},
		{`1.50`, `1.50`},
	}
	for _, tt := range tests {
		v, err := Decode([]byte(tt.in))
		if err != nil {
			t.Fatalf("Decode(%s): %v", tt.in, err)
		}
		if got := Encode(v); got != tt.want {
			t.Errorf("Decode(%s) encodes as %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestDecodeRefusesBadText(t *testing.T) {
	t.Parallel()
	for _, in := range []string{``, `{`, `{"a":}`, `[1,]`, `{"a":1} x`, `{"a":1}{}`, `nul`} {
		if v, err := Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%q) = %v, want an error", in, v)
		}
	}
}

func TestObjectSetDeleteKeepOrder(t *testing.T) {
	t.Parallel()
	o := ObjectOf("a", 1, "b", 2, "c", 3)
	o.Set("b", 20)
	o.Set("d", 4)
	o.Delete("a")
	o.Delete("missing")
	if got, want := Encode(o), `{"b":20,"c":3,"d":4}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	c := o.Clone()
	c.Set("e", 5)
	if o.Len() != 3 || c.Len() != 4 {
		t.Fatalf("Clone shares keys: original %d members, clone %d", o.Len(), c.Len())
	}
	var zero Object
	zero.Set("x", json.Number("1"))
	if got := Encode(&zero); got != `{"x":1}` {
		t.Fatalf("zero Object: got %s", got)
	}
}

func TestDeepCopyIsIndependent(t *testing.T) {
	t.Parallel()
	v, _ := Decode([]byte(`{"a":{"b":[1,2]}}`))
	c := DeepCopy(v).(*Object)
	inner, _ := c.Get("a")
	inner.(*Object).Set("b", "changed")
	if got := Encode(v); got != `{"a":{"b":[1,2]}}` {
		t.Fatalf("original changed: %s", got)
	}
}
