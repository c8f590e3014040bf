package jsonata

import (
	"testing"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
)

func TestFnArray(t *testing.T) {
	t.Parallel()
	byValue := fnLambda(2, func(args []any) any { return args[0].(float64) > args[1].(float64) })
	runFnCases(t, []fnCase{
		{"append arrays", fnAppend, fnArr(fnArr(1.0, 2.0), fnArr(3.0)), "[1,2,3]", ""},
		{"append values", fnAppend, fnArr(1.0, 2.0), "[1,2]", ""},
		{"append undefined first", fnAppend, fnArr(fnU, fnArr(3.0)), "[3]", ""},
		{"append undefined second", fnAppend, fnArr(1.0, fnU), "1", ""},
		{"append empty", fnAppend, fnArr(fnArr(1.0), fnArr()), "[1]", ""},
		{"reverse", fnReverse, fnArr(fnArr(1.0, "a", nil)), `[null,"a",1]`, ""},
		{"reverse one", fnReverse, fnArr(fnArr(1.0)), "[1]", ""},
		{"reverse undefined", fnReverse, fnArr(fnU), "undefined", ""},
		// draws 0.05, 0.15, 0.25, 0.35 give j = 0, 0, 0, 1
		{"shuffle", fnShuffle, fnArr(fnArr(1.0, 2.0, 3.0, 4.0)), "[3,4,2,1]", ""},
		{"distinct", fnDistinct, fnArr(fnArr(1.0, "1", 1.0, fnObj("a", fnArr(1.0)), fnObj("a", fnArr(1.0)), nil, nil)), `[1,"1",{"a":[1]},null]`, ""},
		{"distinct object key order", fnDistinct, fnArr(fnArr(fnObj("a", 1.0, "b", 2.0), fnObj("b", 2.0, "a", 1.0))), `[{"a":1,"b":2}]`, ""},
		{"distinct not an array", fnDistinct, fnArr("x"), `"x"`, ""},
		{"distinct undefined", fnDistinct, fnArr(fnU), "undefined", ""},
		{"zip", fnZip, fnArr(fnArr(1.0, 2.0, 3.0), fnArr("a", "b")), `[[1,"a"],[2,"b"]]`, ""},
		{"zip undefined", fnZip, fnArr(fnArr(1.0), fnU), "[]", ""},
		{"zip one", fnZip, fnArr(fnArr(1.0, 2.0)), "[[1],[2]]", ""},
		{"sort numbers", fnSort, fnArr(fnArr(3.0, 1.0, 2.0, -5.0), fnU), "[-5,1,2,3]", ""},
		{"sort strings UTF-16", fnSort, fnArr(fnArr("😀", "\uffff", "b", "B"), fnU), "[\"B\",\"b\",\"😀\",\"\uffff\"]", ""},
		{"sort mixed", fnSort, fnArr(fnArr(1.0, "a"), fnU), "", "D3070"},
		{"sort one of anything", fnSort, fnArr(fnArr(fnObj()), fnU), "[{}]", ""},
		{"sort comparator", fnSort, fnArr(fnArr(3.0, 1.0, 2.0), byValue), "[1,2,3]", ""},
		{"sort comparator truthiness", fnSort, fnArr(fnArr(3.0, 1.0, 2.0), fnLambda(2, func([]any) any { return fnArr() })), "[2,1,3]", ""},
		{"sort stable", fnSort, fnArr(fnArr(fnObj("k", 1.0, "i", 1.0), fnObj("k", 0.0, "i", 2.0), fnObj("k", 1.0, "i", 3.0)),
			fnLambda(2, func(args []any) any {
				l, _ := args[0].(interface{ Get(string) (any, bool) }).Get("k")
				r, _ := args[1].(interface{ Get(string) (any, bool) }).Get("k")
				return l.(float64) > r.(float64)
			})), `[{"k":0,"i":2},{"k":1,"i":1},{"k":1,"i":3}]`, ""},
		{"sort comparator error", fnSort, fnArr(fnArr(2.0, 1.0), &fnTestLambda{params: 2, body: func([]any) (any, error) {
			return nil, &Error{Code: "D3137", Message: "stop"}
		}}), "", "D3137"},
	})
}

func TestFnObject(t *testing.T) {
	t.Parallel()
	runFnCases(t, []fnCase{
		{"keys", fnKeys, fnArr(fnObj("b", 1.0, "a", 2.0)), `["b","a"]`, ""},
		{"keys one", fnKeys, fnArr(fnObj("a", 1.0)), `"a"`, ""},
		{"keys empty", fnKeys, fnArr(fnObj()), "undefined", ""},
		{"keys of array", fnKeys, fnArr(fnArr(fnObj("a", 1.0, "b", 2.0), 5.0, fnObj("c", 1.0, "a", 3.0), fnArr(fnObj("d", 1.0)))), `["a","b","c","d"]`, ""},
		{"keys of string", fnKeys, fnArr("x"), "undefined", ""},
		{"lookup", fnLookup, fnArr(fnObj("a", fnArr(1.0, 2.0)), "a"), "[1,2]", ""},
		{"lookup missing", fnLookup, fnArr(fnObj("a", 1.0), "b"), "undefined", ""},
		{"lookup null value", fnLookup, fnArr(fnObj("a", nil), "a"), "null", ""},
		{"lookup array flattens", fnLookup, fnArr(fnArr(fnObj("a", fnArr(1.0, 2.0)), fnObj("a", 3.0), fnObj("b", 4.0)), "a"), "[1,2,3]", ""},
		{"lookup array single", fnLookup, fnArr(fnArr(fnObj("a", fnArr(1.0))), "a"), "1", ""},
		{"lookup string", fnLookup, fnArr("x", "a"), "undefined", ""},
		{"spread", fnSpread, fnArr(fnObj("a", 1.0, "b", 2.0)), `[{"a":1},{"b":2}]`, ""},
		{"spread one", fnSpread, fnArr(fnObj("a", 1.0)), `{"a":1}`, ""},
		{"spread array", fnSpread, fnArr(fnArr(fnObj("a", 1.0), 5.0, fnArr(fnObj("b", 2.0)))), `[{"a":1},5,{"b":2}]`, ""},
		{"spread array of one", fnSpread, fnArr(fnArr(fnObj("a", 1.0))), `[{"a":1}]`, ""},
		{"spread empty array", fnSpread, fnArr(fnArr()), "undefined", ""},
		{"spread array of empty object", fnSpread, fnArr(fnArr(fnObj())), "[]", ""},
		{"spread value", fnSpread, fnArr("x"), `"x"`, ""},
		{"merge", fnMerge, fnArr(fnArr(fnObj("a", 1.0, "b", 2.0), fnObj("c", 3.0, "a", 4.0))), `{"a":4,"b":2,"c":3}`, ""},
		{"merge empty", fnMerge, fnArr(fnArr()), "{}", ""},
		{"merge undefined", fnMerge, fnArr(fnU), "undefined", ""},
		{"each", fnEach, fnArr(fnObj("a", 1.0, "b", 2.0), fnLambda(2, func(args []any) any { return args[1].(string) + "=" + js.NumberToString(args[0].(float64)) })), `["a=1","b=2"]`, ""},
		{"each skips undefined", fnEach, fnArr(fnObj("a", 1.0, "b", 2.0), fnLambda(1, func(args []any) any {
			if args[0].(float64) > 1 {
				return args[0]
			}
			return Undefined
		})), "2", ""},
		{"sift", fnSift, fnArr(fnObj("a", 1.0, "b", 2.0, "c", 3.0), fnLambda(1, func(args []any) any { return args[0].(float64) != 2 })), `{"a":1,"c":3}`, ""},
		{"sift by key", fnSift, fnArr(fnObj("a", 1.0, "b", 2.0), fnLambda(2, func(args []any) any { return args[1] == "b" })), `{"b":2}`, ""},
		{"sift none", fnSift, fnArr(fnObj("a", 1.0), fnLambda(1, func([]any) any { return false })), "undefined", ""},
		{"sift no function", fnSift, fnArr(fnObj("a", 1.0), fnU), "error", ""},
		{"clone", fnClone, fnArr(fnObj("a", fnArr(0.1+0.2, &Builtin{}), "b", nil)), `{"a":[0.3,""],"b":null}`, ""},
		{"clone undefined", fnClone, fnArr(fnU), "undefined", ""},
	})
}

func TestFnHigherOrder(t *testing.T) {
	t.Parallel()
	double := fnLambda(1, func(args []any) any { return args[0].(float64) * 2 })
	withIndex := fnLambda(3, func(args []any) any {
		return js.NumberToString(args[0].(float64)) + "@" + js.NumberToString(args[1].(float64)) + "/" + js.NumberToString(float64(len(args[2].([]any))))
	})
	odd := fnLambda(1, func(args []any) any { return int(args[0].(float64))%2 == 1 })
	add := fnLambda(2, func(args []any) any { return args[0].(float64) + args[1].(float64) })
	trace := fnLambda(4, func(args []any) any {
		acc, _ := args[0].(string)
		return acc + js.NumberToString(args[1].(float64)) + js.NumberToString(args[2].(float64)) + js.NumberToString(float64(len(args[3].([]any))))
	})
	runFnCases(t, []fnCase{
		{"map", fnMap, fnArr(fnArr(1.0, 2.0), double), "[2,4]", ""},
		{"map one", fnMap, fnArr(fnArr(1.0), double), "2", ""},
		{"map empty", fnMap, fnArr(fnArr(), double), "undefined", ""},
		{"map undefined", fnMap, fnArr(fnU, double), "undefined", ""},
		{"map index and array", fnMap, fnArr(fnArr(5.0, 6.0), withIndex), `["5@0/2","6@1/2"]`, ""},
		{"map drops undefined", fnMap, fnArr(fnArr(1.0, 2.0), fnLambda(1, func([]any) any { return Undefined })), "undefined", ""},
		{"filter", fnFilter, fnArr(fnArr(1.0, 2.0, 3.0), odd), "[1,3]", ""},
		{"filter one", fnFilter, fnArr(fnArr(1.0, 2.0), odd), "1", ""},
		{"filter boolean cast", fnFilter, fnArr(fnArr(1.0, 2.0), fnLambda(1, func(args []any) any { return fnArr(0.0, "x") })), "[1,2]", ""},
		{"single", fnSingle, fnArr(fnArr(1.0, 2.0), fnLambda(1, func(args []any) any { return args[0] == 2.0 })), "2", ""},
		{"single default", fnSingle, fnArr(fnArr("x"), fnU), `"x"`, ""},
		{"single many", fnSingle, fnArr(fnArr(1.0, 3.0), odd), "", "D3138"},
		{"single none", fnSingle, fnArr(fnArr(2.0), odd), "", "D3139"},
		{"single empty", fnSingle, fnArr(fnArr(), fnU), "", "D3139"},
		{"single undefined", fnSingle, fnArr(fnU, fnU), "undefined", ""},
		{"reduce", fnReduce, fnArr(fnArr(1.0, 2.0, 3.0), add, fnU), "6", ""},
		{"reduce init", fnReduce, fnArr(fnArr(1.0, 2.0), add, 10.0), "13", ""},
		{"reduce empty", fnReduce, fnArr(fnArr(), add, fnU), "undefined", ""},
		{"reduce empty init", fnReduce, fnArr(fnArr(), add, 7.0), "7", ""},
		{"reduce one", fnReduce, fnArr(fnArr(4.0), add, fnU), "4", ""},
		{"reduce index and array", fnReduce, fnArr(fnArr(5.0, 6.0), trace, ""), `"502612"`, ""},
		{"reduce arity", fnReduce, fnArr(fnArr(1.0), double, fnU), "", "D3050"},
	})
}

func TestFnArityOfString(t *testing.T) {
	t.Parallel()
	for _, b := range coreFunctions() {
		if b.Name == "string" {
			if got := fnArity(b); got != 1 {
				t.Errorf("fnArity($string) = %d; want 1", got)
			}
			return
		}
	}
	t.Fatal("no $string in coreFunctions")
}
