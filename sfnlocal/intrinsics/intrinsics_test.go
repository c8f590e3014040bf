package intrinsics

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
	"github.com/sfnapprovals/approvals/sfnlocal/jsonpath"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonvalue.Decode([]byte(s))
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// text is v's JSON text, members in order, for exact comparisons.
func text(v any) string { return jsonvalue.Encode(v) }

func resolver(t *testing.T, input string) func(string) (any, error) {
	t.Helper()
	in := decode(t, input)
	ctx := jsonvalue.ObjectOf("Execution", jsonvalue.ObjectOf("Name", "exec-1"))
	vars := map[string]any{"greeting": "hi"}
	return func(p string) (any, error) { return jsonpath.Resolve(p, in, ctx, vars) }
}

func TestEval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, expr, input, want string
	}{
		// Examples from the AWS "Intrinsic functions" page.
		{"Format doc", `States.Format('Hello, my name is {}.', $.name)`, `{"name":"Arnav"}`, `"Hello, my name is Arnav."`},
		{"Format template path", `States.Format($.template, $.name)`, `{"name":"Arnav","template":"Hello, my name is {}."}`, `"Hello, my name is Arnav."`},
		{"StringToJson doc", `States.StringToJson($.escapedJsonString)`, `{"escapedJsonString":"{\"foo\": \"bar\"}"}`, `{"foo":"bar"}`},
		{"JsonToString doc", `States.JsonToString($.unescapedJson)`, `{"unescapedJson":{"foo":"bar"}}`, `"{\"foo\":\"bar\"}"`},
		{"Array doc", `States.Array($.Id)`, `{"Id":123456}`, `[123456]`},
		{"ArrayPartition doc", `States.ArrayPartition($.inputArray,4)`, `{"inputArray":[1,2,3,4,5,6,7,8,9]}`, `[[1,2,3,4],[5,6,7,8],[9]]`},
		{"ArrayContains doc", `States.ArrayContains($.inputArray, $.lookingFor)`, `{"inputArray":[1,2,3,4,5,6,7,8,9],"lookingFor":5}`, `true`},
		{"ArrayRange doc", `States.ArrayRange(1, 9, 2)`, `{}`, `[1,3,5,7,9]`},
		{"ArrayGetItem doc", `States.ArrayGetItem($.inputArray, $.index)`, `{"inputArray":[1,2,3,4,5,6,7,8,9],"index":5}`, `6`},
		{"ArrayLength doc", `States.ArrayLength($.inputArray)`, `{"inputArray":[1,2,3,4,5,6,7,8,9]}`, `9`},
		{"ArrayUnique doc", `States.ArrayUnique($.inputArray)`, `{"inputArray":[1,2,3,3,3,3,3,3,4]}`, `[1,2,3,4]`},
		{"Base64Encode doc", `States.Base64Encode($.input)`, `{"input":"Data to encode"}`, `"RGF0YSB0byBlbmNvZGU="`},
		{"Base64Decode doc", `States.Base64Decode($.base64)`, `{"base64":"RGF0YSB0byBlbmNvZGU="}`, `"Data to encode"`},
		{"Hash MD5", `States.Hash($.Data, $.Algorithm)`, `{"Data":"Data to encode","Algorithm":"MD5"}`, `"ca405671828a177e26947171bbe1e352"`},
		{"JsonMerge doc", `States.JsonMerge($.json1, $.json2, false)`, `{"json1":{"a":{"a1":1,"a2":2},"b":2},"json2":{"a":{"a3":1,"a4":2},"c":3}}`, `{"a":{"a3":1,"a4":2},"b":2,"c":3}`},
		{"MathAdd doc", `States.MathAdd($.value1, $.step)`, `{"value1":111,"step":-1}`, `110`},
		{"StringSplit doc", `States.StringSplit($.inputString, $.splitter)`, `{"inputString":"1,2,3,4,5","splitter":","}`, `["1","2","3","4","5"]`},
		{"StringSplit delimiter set", `States.StringSplit($.inputString, $.splitter)`, `{"inputString":"This.is+a,test=string","splitter":".+,="}`, `["This","is","a","test","string"]`},
		{"nested doc myArn", `States.Format('{}.{}.{}', States.ArrayGetItem(States.StringSplit(States.ArrayGetItem(States.StringSplit($.ImageRecipe.Arn, '/'), 2), '.'), 0), States.ArrayGetItem(States.StringSplit(States.ArrayGetItem(States.StringSplit($.ImageRecipe.Arn, '/'), 2), '.'), 1), 'x')`, `{"ImageRecipe":{"Arn":"arn:aws:imagebuilder:us-east-1:1:image-recipe/r/1.2.3"}}`, `"1.2.x"`},

		// Format.
		// AWS renders objects and arrays as Java maps and lists
		// (test_string_operations: "{Arg1=1, Arg2=[]}").
		{"Format raw strings, Java maps and lists", `States.Format('{}|{}|{}|{}|{}|{}', $.s, $.n, $.b, $.z, $.o, $.a)`, `{"s":"x","n":3.50,"b":false,"z":null,"o":{"k":"<v>"},"a":[1,"2"]}`, `"x|3.50|false|null|{k=<v>}|[1, 2]"`},
		{"Format object with an empty array", `States.Format('{}', $.o)`, `{"o":{"Arg1":1,"Arg2":[]}}`, `"{Arg1=1, Arg2=[]}"`},
		{"Format nested", `States.Format('{}', $.o)`, `{"o":{"a":{"b":[true,null]},"c":"d"}}`, `"{a={b=[true, null]}, c=d}"`},
		{"Format escapes", `States.Format('Name: \'{}\' \{\} \\ {}', $.name, 1)`, `{"name":"Ada"}`, `"Name: 'Ada' {} \\ 1"`},
		{"Format no placeholders", `States.Format('plain')`, `{}`, `"plain"`},
		{"Format nested length", `States.Format('{}', States.ArrayLength($.a))`, `{"a":[1,2]}`, `"2"`},
		{"Format context and variable", `States.Format('{} {}', $$.Execution.Name, $greeting)`, `{}`, `"exec-1 hi"`},
		{"Format spaces", `States.Format( '  {}  ' , $.a )`, `{"a":"x"}`, `"  x  "`},

		// JSON.
		{"StringToJson scalar", `States.StringToJson($.s)`, `{"s":" 123 "}`, `123`},
		{"StringToJson empty is null", `States.StringToJson($.s)`, `{"s":""}`, `null`},
		{"round trip", `States.StringToJson(States.JsonToString($.o))`, `{"o":{"a":[1,{"b":null}]}}`, `{"a":[1,{"b":null}]}`},
		{"JsonToString keeps number text", `States.JsonToString($.o)`, `{"o":{"n":1.50,"s":"a&b"}}`, `"{\"n\":1.50,\"s\":\"a&b\"}"`},
		{"JsonMerge non-boolean flag is shallow", `States.JsonMerge($.a, $.b, 'false')`, `{"a":{"x":1},"b":{"y":2}}`, `{"x":1,"y":2}`},

		// Member order: as written, a merge keeps the left order with the
		// right's new keys last.
		{"JsonMerge keeps the left order", `States.JsonMerge($.a, $.b, false)`, `{"a":{"z":1,"b":2,"m":0},"b":{"q":3,"z":4}}`, `{"z":4,"b":2,"m":0,"q":3}`},
		{"StringToJson keeps the text order", `States.StringToJson($.s)`, `{"s":"{\"z\":1,\"a\":{\"y\":2,\"b\":3}}"}`, `{"z":1,"a":{"y":2,"b":3}}`},
		{"JsonToString keeps the order", `States.JsonToString($.o)`, `{"o":{"z":1,"a":[{"y":2,"b":3}]}}`, `"{\"z\":1,\"a\":[{\"y\":2,\"b\":3}]}"`},
		{"Format keeps the order", `States.Format('{}', $.o)`, `{"o":{"z":1,"a":2}}`, `"{z=1, a=2}"`},
		{"Array keeps the order", `States.Array($.o)`, `{"o":{"z":1,"a":2}}`, `[{"z":1,"a":2}]`},
		{"ArrayContains object in another order", `States.ArrayContains($.a, $.o)`, `{"a":[1,{"x":1,"y":{"p":1,"q":2}}],"o":{"y":{"q":2,"p":1.0},"x":1}}`, `true`},
		{"ArrayContains object with other content", `States.ArrayContains($.a, $.o)`, `{"a":[{"x":1,"y":2}],"o":{"y":2,"x":1,"z":3}}`, `false`},
		{"ArrayUnique objects by content", `States.ArrayUnique($.a)`, `{"a":[{"x":1,"y":2},{"y":2,"x":1.0},{"x":1},{"y":2,"x":1}]}`, `[{"x":1,"y":2},{"x":1}]`},
		{"ArrayGetItem keeps the order", `States.ArrayGetItem($.a, 0)`, `{"a":[{"z":1,"a":2}]}`, `{"z":1,"a":2}`},
		{"ArrayPartition keeps the order", `States.ArrayPartition($.a, 1)`, `{"a":[{"z":1,"a":2}]}`, `[[{"z":1,"a":2}]]`},

		// Arrays.
		{"Array empty", `States.Array()`, `{}`, `[]`},
		{"Array literals", `States.Array('a', 1, -2.5, true, null, $.o)`, `{"o":{"k":1}}`, `["a",1,-2.5,true,null,{"k":1}]`},
		{"ArrayPartition empty", `States.ArrayPartition($.a, 3)`, `{"a":[]}`, `[]`},
		{"ArrayPartition truncates size", `States.ArrayPartition($.a, 2.6)`, `{"a":[1,2,3,4,5]}`, `[[1,2],[3,4],[5]]`},
		{"ArrayContains object", `States.ArrayContains($.a, $.t)`, `{"a":[{"a":1,"b":2}],"t":{"b":2,"a":1}}`, `true`},
		{"ArrayContains null", `States.ArrayContains($.a, null)`, `{"a":[1,null]}`, `true`},
		{"ArrayContains no bool-number coercion", `States.ArrayContains($.a, false)`, `{"a":[0,1]}`, `false`},
		{"ArrayContains string-bool text", `States.ArrayContains($.a, true)`, `{"a":["true"]}`, `true`},
		{"ArrayContains nested array", `States.ArrayContains($.a, $.t)`, `{"a":[null,[0,1,false]],"t":[0,1,false]}`, `true`},
		{"ArrayContains empty", `States.ArrayContains($.a, 1)`, `{"a":[]}`, `false`},
		{"ArrayRange descending", `States.ArrayRange(5, 1, -2)`, `{}`, `[5,3,1]`},
		{"ArrayRange wrong direction", `States.ArrayRange(1, 5, -1)`, `{}`, `[]`},
		{"ArrayRange truncates", `States.ArrayRange(1.6, 1.4, 1)`, `{}`, `[1]`},
		{"ArrayRange nested", `States.ArrayRange(States.MathAdd($.b, 1), States.MathAdd($.b, 5), 2)`, `{"b":0}`, `[1,3,5]`},
		{"ArrayGetItem truncates", `States.ArrayGetItem($.a, 1.2)`, `{"a":[10,20,30]}`, `20`},
		{"ArrayGetItem empty array", `States.ArrayGetItem($.a, 999)`, `{"a":[]}`, `null`},
		{"ArrayUnique numbers by value", `States.ArrayUnique($.a)`, `{"a":[1,"1",1.0,{"a":1,"b":2},{"b":2,"a":1},null,null]}`, `[1,"1",{"a":1,"b":2},null]`},

		// Encoding and hashing.
		{"Base64 unicode", `States.Base64Encode('🚀')`, `{}`, `"8J+agA=="`},
		{"Base64Decode lenient", `States.Base64Decode(' YWJjZA== ')`, `{}`, `"abcd"`},
		{"Base64Decode unpadded", `States.Base64Decode('YWJjZA')`, `{}`, `"abcd"`},
		{"Hash SHA-1", `States.Hash('hello', 'SHA-1')`, `{}`, `"aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d"`},
		{"Hash SHA-256", `States.Hash('hello', 'SHA-256')`, `{}`, `"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"`},
		{"Hash SHA-384", `States.Hash('hello', 'SHA-384')`, `{}`, `"59e1748777448c69de6b800d7a33bbfb9ff1b463e44354c3553bcdb9c666fa90125a3c79f90397bdf5f6a13de828684f"`},
		{"Hash SHA-512", `States.Hash('hello', 'SHA-512')`, `{}`, `"9b71d224bd62f3785d96d46ad3ea3d73319bfbc2890caadae2dff72519673ca72323c3d99ba5c11d7c7acc6e14b8c5da0c4663475c2e5c3adef46f73bcdec043"`},
		{"Hash stringifies non-strings", `States.Hash(123, 'MD5')`, `{}`, `"202cb962ac59075b964b07152d234b70"`},
		{"Hash nested Format", `States.Hash(States.Format('{}:{}', $.a, $.b), 'SHA-256')`, `{"a":"x","b":"y"}`, `"1274e286686b54fe765ec40735665b4bf789cee2a5b22124c5e0491a88e15271"`},

		// Math.
		{"MathAdd rounds operands", `States.MathAdd($.a, $.b)`, `{"a":1.6,"b":2.7}`, `5`},
		{"MathAdd rounds ties up", `States.MathAdd(-2.5, 0.5)`, `{}`, `-1`},
		{"MathAdd int32 edge", `States.MathAdd(2147483646, 1)`, `{}`, `2147483647`},
		{"MathRandom seeded like Java", `States.MathRandom(-5, 5, 42)`, `{}`, `-5`},

		// Strings.
		{"StringSplit drops empty tokens", `States.StringSplit($.s, ',')`, `{"s":",a,,b,"}`, `["a","b"]`},
		{"StringSplit empty input", `States.StringSplit('', ',')`, `{}`, `[]`},
		{"StringSplit empty delimiter", `States.StringSplit('abc', '')`, `{}`, `["abc"]`},
		{"path with filter and comma", `States.ArrayLength($.a[?(@.k == 'x,y')])`, `{"a":[{"k":"x,y"},{"k":"z"}]}`, `1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Eval(tt.expr, resolver(t, tt.input))
			if err != nil {
				t.Fatalf("Eval(%s): %v", tt.expr, err)
			}
			if diff := cmp.Diff(text(decode(t, tt.want)), text(got)); diff != "" {
				t.Errorf("Eval(%s) (-want +got):\n%s", tt.expr, diff)
			}
		})
	}
}

func TestEvalErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", maxEncodeChars+1)
	tests := []struct {
		expr, input string
		wantName    string
		wantMsg     string
	}{
		{`States.Format('{} {}', $.a)`, `{"a":"x"}`, ErrRuntime, "Invalid arguments in States.Format"},
		{`States.Format('{}', $.a, $.b)`, `{"a":"x","b":"y"}`, ErrRuntime, "Invalid arguments in States.Format"},
		{`States.Format('Hello {', $.a)`, `{"a":"x"}`, ErrRuntime, "Invalid arguments in States.Format"},
		{`States.Format('}')`, `{}`, ErrRuntime, "Invalid arguments in States.Format"},
		{`States.Format('Hello {{}}', $.a)`, `{"a":"x"}`, ErrRuntime, "Invalid arguments in States.Format"},
		{`States.Format($.t)`, `{"t":123}`, ErrRuntime, "Invalid arguments in States.Format"},
		{`States.StringToJson($.s)`, `{"s":"{bad json}"}`, ErrRuntime, "Invalid arguments in States.StringToJson"},
		{`States.StringToJson($.s)`, `{"s":"{\"a\":1"}`, ErrRuntime, "Invalid arguments in States.StringToJson"},
		{`States.StringToJson($.s)`, `{"s":"1 2"}`, ErrRuntime, "Invalid arguments in States.StringToJson"},
		{`States.StringToJson($.s)`, `{"s":123}`, ErrRuntime, "Invalid arguments in States.StringToJson"},
		{`States.StringToJson($.a, $.b)`, `{"a":"1","b":"2"}`, ErrRuntime, "Invalid arguments in States.StringToJson"},
		{`States.ArrayPartition($.a, 0)`, `{"a":[1]}`, ErrRuntime, "Invalid arguments in States.ArrayPartition"},
		{`States.ArrayPartition($.a, 0.6)`, `{"a":[1]}`, ErrRuntime, "Invalid arguments in States.ArrayPartition"},
		{`States.ArrayPartition($.a, -1)`, `{"a":[1]}`, ErrRuntime, "Invalid arguments in States.ArrayPartition"},
		{`States.ArrayPartition('x', 2)`, `{}`, ErrRuntime, "Invalid arguments in States.ArrayPartition"},
		{`States.ArrayPartition($.a, '2')`, `{"a":[1]}`, ErrRuntime, "Invalid arguments in States.ArrayPartition"},
		{`States.ArrayPartition($.a)`, `{"a":[1]}`, ErrRuntime, "Invalid arguments in States.ArrayPartition"},
		{`States.ArrayContains('x', 'x')`, `{}`, ErrRuntime, "Invalid arguments in States.ArrayContains"},
		{`States.ArrayRange(1, 1001, 1)`, `{}`, ErrRuntime, "Invalid arguments in States.ArrayRange"},
		{`States.ArrayRange(1001, 1, -1)`, `{}`, ErrRuntime, "Invalid arguments in States.ArrayRange"},
		{`States.ArrayRange(1, 10, 0.49)`, `{}`, ErrRuntime, "Invalid arguments in States.ArrayRange"},
		{`States.ArrayRange('a', 5, 1)`, `{}`, ErrRuntime, "Invalid arguments in States.ArrayRange"},
		{`States.ArrayRange(1, 5, 1, 99)`, `{}`, ErrRuntime, "Invalid arguments in States.ArrayRange"},
		{`States.ArrayGetItem($.a, 3)`, `{"a":[1,2,3]}`, ErrRuntime, "Invalid arguments in States.ArrayGetItem"},
		{`States.ArrayGetItem($.a, -1)`, `{"a":[1,2,3]}`, ErrRuntime, "Invalid arguments in States.ArrayGetItem"},
		{`States.ArrayGetItem($.a, '1')`, `{"a":[1,2,3]}`, ErrRuntime, "Invalid arguments in States.ArrayGetItem"},
		{`States.ArrayLength($.o)`, `{"o":{}}`, ErrRuntime, "Invalid arguments in States.ArrayLength"},
		{`States.ArrayUnique('x')`, `{}`, ErrRuntime, "Invalid arguments in States.ArrayUnique"},
		{`States.Base64Encode($.s)`, `{"s":"` + long + `"}`, ErrRuntime, "Invalid arguments in States.Base64Encode"},
		{`States.Base64Encode(123)`, `{}`, ErrRuntime, "Invalid arguments in States.Base64Encode"},
		{`States.Base64Decode($.s)`, `{"s":"` + long + `"}`, ErrRuntime, "Invalid arguments in States.Base64Decode"},
		{`States.Base64Decode($.o)`, `{"o":{}}`, ErrRuntime, "Invalid arguments in States.Base64Decode"},
		{`States.Hash($.s, 'SHA-256')`, `{"s":"` + long + `"}`, ErrRuntime, "Invalid arguments in States.Hash"},
		{`States.Hash('data', 'sha-256')`, `{}`, ErrRuntime, "Invalid arguments in States.Hash"},
		{`States.Hash('data', 'SHA256')`, `{}`, ErrRuntime, "Invalid arguments in States.Hash"},
		{`States.Hash('data', 123)`, `{}`, ErrRuntime, "Invalid arguments in States.Hash"},
		{`States.Hash('data')`, `{}`, ErrRuntime, "Invalid arguments in States.Hash"},
		{`States.JsonMerge($.a, $.b, true)`, `{"a":{},"b":{}}`, ErrRuntime, "Invalid arguments in States.JsonMerge"},
		{`States.JsonMerge($.a, $.b, false)`, `{"a":[],"b":{}}`, ErrRuntime, "Invalid arguments in States.JsonMerge"},
		{`States.JsonMerge($.a, $.b)`, `{"a":{},"b":{}}`, ErrRuntime, "Invalid arguments in States.JsonMerge"},
		{`States.MathRandom(1, 1)`, `{}`, ErrRuntime, "Invalid arguments in States.MathRandom"},
		{`States.MathRandom(10, 5)`, `{}`, ErrRuntime, "Invalid arguments in States.MathRandom"},
		{`States.MathRandom(1.4, 1.6)`, `{}`, ErrRuntime, "Invalid arguments in States.MathRandom"},
		{`States.MathRandom('a', 10)`, `{}`, ErrRuntime, "Invalid arguments in States.MathRandom"},
		{`States.MathRandom(1, 10, null)`, `{}`, ErrRuntime, "Invalid arguments in States.MathRandom"},
		{`States.MathRandom(1)`, `{}`, ErrRuntime, "Invalid arguments in States.MathRandom"},
		{`States.MathAdd(2147483647, 1)`, `{}`, ErrRuntime, "Invalid arguments in States.MathAdd"},
		{`States.MathAdd(3000000000, 1)`, `{}`, ErrRuntime, "Invalid arguments in States.MathAdd"},
		{`States.MathAdd('1', 2)`, `{}`, ErrRuntime, "Invalid arguments in States.MathAdd"},
		{`States.MathAdd(true, 1)`, `{}`, ErrRuntime, "Invalid arguments in States.MathAdd"},
		{`States.MathAdd(null, 1)`, `{}`, ErrRuntime, "Invalid arguments in States.MathAdd"},
		{`States.StringSplit($.s, ',')`, `{"s":123}`, ErrRuntime, "Invalid arguments in States.StringSplit"},
		{`States.StringSplit($.s, $.d)`, `{"s":"a","d":[","]}`, ErrRuntime, "Invalid arguments in States.StringSplit"},
		{`States.UUID(1)`, `{}`, ErrRuntime, "Invalid arguments in States.UUID"},
		// Malformed calls.
		{`States.Nope(1)`, `{}`, ErrIntrinsicFailure, ""},
		{`States.Format('a\nb')`, `{}`, ErrIntrinsicFailure, ""},
		{`States.Format('open`, `{}`, ErrIntrinsicFailure, ""},
		{`States.Array(1,)`, `{}`, ErrIntrinsicFailure, ""},
		{`States.Array(1) x`, `{}`, ErrIntrinsicFailure, ""},
		{`States.Array(01)`, `{}`, ErrIntrinsicFailure, ""},
		{`States.Array(undefined)`, `{}`, ErrIntrinsicFailure, ""},
		{`States.Array($.a`, `{}`, ErrIntrinsicFailure, ""},
		{nest(11), `{}`, ErrIntrinsicFailure, ""},
	}
	for _, tt := range tests {
		name := tt.expr
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Eval(tt.expr, resolver(t, tt.input))
			var ie *Error
			if !errors.As(err, &ie) {
				t.Fatalf("Eval(%s) error = %v, want *Error", name, err)
			}
			if ie.Name != tt.wantName || (tt.wantMsg != "" && ie.Message != tt.wantMsg) {
				t.Errorf("Eval(%s) = %s / %q, want %s / %q", name, ie.Name, ie.Message, tt.wantName, tt.wantMsg)
			}
		})
	}
}

func nest(n int) string {
	return strings.Repeat("States.Array(", n) + "1" + strings.Repeat(")", n)
}

func TestEvalPassesResolveErrors(t *testing.T) {
	t.Parallel()
	_, err := Eval(`States.Format('{}', $.missing)`, resolver(t, `{}`))
	var nm *jsonpath.NoMatchError
	if !errors.As(err, &nm) || nm.Path != "$.missing" {
		t.Errorf("error = %v, want the resolver's *jsonpath.NoMatchError", err)
	}
}

func TestNestingLimit(t *testing.T) {
	t.Parallel()
	got, err := Eval(nest(10), resolver(t, `{}`))
	if err != nil {
		t.Fatalf("10 nested calls: %v", err)
	}
	if diff := cmp.Diff("[[[[[[[[[[1]]]]]]]]]]", text(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestRandomAndUUID(t *testing.T) {
	t.Parallel()
	res := resolver(t, `{"start":-1000000,"end":1000000}`)
	for range 200 {
		v, err := Eval(`States.MathRandom($.start, $.end)`, res)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := v.(json.Number).Int64()
		if n < -1000000 || n >= 1000000 {
			t.Fatalf("MathRandom = %d, want in [-1000000, 1000000)", n)
		}
		small, _ := Eval(`States.MathRandom(1.6, 5.4)`, res)
		if n, _ := small.(json.Number).Int64(); n < 1 || n >= 5 {
			t.Fatalf("MathRandom(1.6, 5.4) = %d, want in [1, 5)", n)
		}
	}
	a, _ := Eval(`States.MathRandom(1, 100, 42)`, res)
	b, _ := Eval(`States.MathRandom(1, 100, 42)`, res)
	if a != b {
		t.Errorf("seeded MathRandom not deterministic: %v != %v", a, b)
	}
	uuidRE := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	u1, err := Eval(`States.UUID()`, res)
	if err != nil {
		t.Fatal(err)
	}
	u2, _ := Eval(`States.UUID()`, res)
	if s, _ := u1.(string); !uuidRE.MatchString(s) || u1 == u2 {
		t.Errorf("UUID() = %v, %v, want distinct v4 UUIDs", u1, u2)
	}
}

func TestJavaRandom(t *testing.T) {
	t.Parallel()
	if got := newJavaRandom(42).next(32); got != -1170105035 {
		t.Errorf("new Random(42).nextInt() = %d, want -1170105035", got)
	}
	if got := newJavaRandom(42).nextInt(10); got != 0 {
		t.Errorf("new Random(42).nextInt(10) = %d, want 0", got)
	}
}

func TestIsCallAndValidate(t *testing.T) {
	t.Parallel()
	calls := map[string]bool{
		"States.Format('{}', $.a)": true, " States.UUID() ": true, "$.a": false, "States.Format": false, "Format()": false,
	}
	for s, want := range calls {
		if got := IsCall(s); got != want {
			t.Errorf("IsCall(%q) = %v, want %v", s, got, want)
		}
	}
	valid := map[string]bool{
		"States.Format('{}', States.ArrayLength($.a))": true,
		"States.MathRandom(1, 2, 3)":                   true,
		"States.ArrayLength($.a, $.b)":                 false,
		"States.Format(States.UUID(1))":                false,
		"States.Unknown()":                             false,
	}
	for s, want := range valid {
		if err := Validate(s); (err == nil) != want {
			t.Errorf("Validate(%q) = %v, want ok=%v", s, err, want)
		}
	}
}

func TestWithTemplate(t *testing.T) {
	t.Parallel()
	res := resolver(t, `{"a":[1,2,3],"name":"Ada"}`)
	eval := func(expr string) (any, error) { return Eval(expr, res) }
	tmpl := decode(t, `{"n.$": "States.Format('{} has {}', $.name, States.ArrayLength($.a))", "raw.$": "$.a[0]"}`)
	got, err := jsonpath.Template(tmpl, res, eval)
	if err != nil {
		t.Fatalf("Template: %v", err)
	}
	if diff := cmp.Diff(`{"n":"Ada has 3","raw":1}`, text(got)); diff != "" {
		t.Errorf("Template (-want +got):\n%s", diff)
	}
	_, err = jsonpath.Template(decode(t, `{"x.$": "States.MathAdd($.name, 1)"}`), res, eval)
	var fe *jsonpath.FieldError
	var ie *Error
	if !errors.As(err, &fe) || fe.Field != "x.$" || !errors.As(err, &ie) {
		t.Errorf("Template error = %v, want a *jsonpath.FieldError for x.$ wrapping *Error", err)
	}
}
