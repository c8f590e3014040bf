package jsonata

import (
	"math"
	"testing"
)

func TestFnString(t *testing.T) {
	t.Parallel()
	fn := &Builtin{Name: "f"}
	runFnCases(t, []fnCase{
		{"undefined", fnString, fnArr(fnU, fnU), "undefined", ""},
		{"string as is", fnString, fnArr("a\"b", fnU), `"a\"b"`, ""},
		{"15 digits", fnString, fnArr(1.0/3, fnU), `"0.333333333333333"`, ""},
		{"big integer", fnString, fnArr(123456789012345678.0, fnU), `"123456789012346000"`, ""},
		{"exponent", fnString, fnArr(1e21, fnU), `"1e+21"`, ""},
		{"small", fnString, fnArr(1.5e-7, fnU), `"1.5e-7"`, ""},
		{"negative zero", fnString, fnArr(math.Copysign(0, -1), fnU), `"0"`, ""},
		{"0.1+0.2", fnString, fnArr(0.1+0.2, fnU), `"0.3"`, ""},
		{"tie rounds up", fnString, fnArr(1000000000000005.0, fnU), `"1000000000000010"`, ""},
		{"negative tie", fnString, fnArr(-1000000000000005.0, fnU), `"-1000000000000010"`, ""},
		{"nested numbers", fnString, fnArr(fnArr(1.0/3, fnObj("a", 2.0/3)), fnU), `"[0.333333333333333,{\"a\":0.666666666666667}]"`, ""},
		{"rounds to infinity", fnString, fnArr(math.MaxFloat64, fnU), `"null"`, ""},
		{"function", fnString, fnArr(fn, fnU), `""`, ""},
		{"nested function", fnString, fnArr(fnObj("f", fn, "g", fnArr(fn)), fnU), `"{\"f\":\"\",\"g\":[\"\"]}"`, ""},
		{"null", fnString, fnArr(nil, fnU), `"null"`, ""},
		{"escapes", fnString, fnArr(fnArr("\n\u0001é"), fnU), `"[\"\\n\\u0001é\"]"`, ""},
		{"pretty", fnString, fnArr(fnObj("a", fnArr(1.0, 2.0), "b", fnObj(), "c", fnArr()), true), `"{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {},\n  \"c\": []\n}"`, ""},
		{"pretty false", fnString, fnArr(fnObj("a", 1.0), false), `"{\"a\":1}"`, ""},
		{"infinity", fnString, fnArr(math.Inf(1), fnU), "", "D3001"},
		{"nested infinity", fnString, fnArr(fnArr(math.Inf(1)), fnU), "", "D1001"},
	})
}

func TestFnText(t *testing.T) {
	t.Parallel()
	runFnCases(t, []fnCase{
		{"length", fnLength, fnArr("héllo😀"), "6", ""},
		{"length undefined", fnLength, fnArr(fnU), "undefined", ""},
		{"substring", fnSubstring, fnArr("hello world", 3.0, 5.0), `"lo wo"`, ""},
		{"substring negative start", fnSubstring, fnArr("hello", -3.0, fnU), `"llo"`, ""},
		{"substring start before beginning", fnSubstring, fnArr("hello", -10.0, 2.0), `"he"`, ""},
		{"substring negative length", fnSubstring, fnArr("hello", 1.0, -1.0), `""`, ""},
		{"substring fractions", fnSubstring, fnArr("hello", 1.7, 2.2), `"el"`, ""},
		{"substring code points", fnSubstring, fnArr("a😀b", 1.0, 1.0), `"😀"`, ""},
		{"substring past end", fnSubstring, fnArr("abc", 5.0, fnU), `""`, ""},
		{"substringBefore", fnSubstringBefore, fnArr("a-b-c", "-"), `"a"`, ""},
		{"substringBefore missing", fnSubstringBefore, fnArr("abc", "x"), `"abc"`, ""},
		{"substringBefore empty", fnSubstringBefore, fnArr("abc", ""), `""`, ""},
		{"substringAfter", fnSubstringAfter, fnArr("a-b-c", "-"), `"b-c"`, ""},
		{"substringAfter missing", fnSubstringAfter, fnArr("abc", "x"), `"abc"`, ""},
		{"uppercase special", fnUppercase, fnArr("straße ﬁ ǰ"), `"STRASSE FI J̌"`, ""},
		{"lowercase final sigma", fnLowercase, fnArr("ΟΔΟΣ ΟΔΟΣ. Σ"), `"οδος οδος. σ"`, ""},
		{"lowercase dotted I", fnLowercase, fnArr("İ"), "\"i\u0307\"", ""},
		{"trim", fnTrim, fnArr(" \t a \n\r b  "), `"a b"`, ""},
		{"trim keeps other space", fnTrim, fnArr("\u00a0a\u00a0"), "\"\u00a0a\u00a0\"", ""},
		{"pad right", fnPad, fnArr("ab", 5.0, fnU), `"ab   "`, ""},
		{"pad left", fnPad, fnArr("ab", -5.0, "#"), `"###ab"`, ""},
		{"pad multi-char", fnPad, fnArr("ab", 7.0, "xyz"), `"abxyzxy"`, ""},
		{"pad emoji", fnPad, fnArr("😀", -3.0, "é"), `"éé😀"`, ""},
		{"pad short width", fnPad, fnArr("abc", 2.0, fnU), `"abc"`, ""},
		{"pad fraction", fnPad, fnArr("a", 3.5, fnU), "error", ""},
		{"join", fnJoin, fnArr(fnArr("a", "b"), ", "), `"a, b"`, ""},
		{"join default", fnJoin, fnArr(fnArr("a", "b"), fnU), `"ab"`, ""},
		{"join empty", fnJoin, fnArr(fnArr(), "x"), `""`, ""},
	})
}
