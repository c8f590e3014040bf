package jsonata

import (
	"regexp"
	"testing"
)

func fnRe(pattern string) *Regex {
	return &Regex{Source: pattern, Re: regexp.MustCompile(pattern)}
}

func TestFnPattern(t *testing.T) {
	t.Parallel()
	// A custom matcher finding "b" at UTF-16 index 1 once.
	matcher := fnLambda(1, func(args []any) any {
		return fnObj("match", "b", "start", 1.0, "end", 2.0, "groups", fnArr(),
			"next", fnLambda(0, func([]any) any { return Undefined }))
	})
	runFnCases(t, []fnCase{
		{"contains string", fnContains, fnArr("abc", "bc"), "true", ""},
		{"contains regex", fnContains, fnArr("abc", fnRe("b+")), "true", ""},
		{"contains regex no", fnContains, fnArr("abc", fnRe("x")), "false", ""},
		{"contains undefined", fnContains, fnArr(fnU, "x"), "undefined", ""},
		{"contains empty match", fnContains, fnArr("abc", fnRe("x*")), "true", ""},

		{"match", fnMatchFn, fnArr("ab12cd345", fnRe(`(\d)(\d)`), fnU),
			`[{"match":"12","index":2,"groups":["1","2"]},{"match":"34","index":6,"groups":["3","4"]}]`, ""},
		{"match one is not an array", fnMatchFn, fnArr("abc", fnRe("b"), fnU), `{"match":"b","index":1,"groups":[]}`, ""},
		{"match none", fnMatchFn, fnArr("abc", fnRe("x"), fnU), "undefined", ""},
		{"match limit", fnMatchFn, fnArr("aaa", fnRe("a"), 2.0), `[{"match":"a","index":0,"groups":[]},{"match":"a","index":1,"groups":[]}]`, ""},
		{"match limit 0", fnMatchFn, fnArr("aaa", fnRe("a"), 0.0), "undefined", ""},
		{"match negative limit", fnMatchFn, fnArr("aaa", fnRe("a"), -1.0), "", "D3040"},
		{"match UTF-16 index", fnMatchFn, fnArr("😀é😀x", fnRe("x"), fnU), `{"match":"x","index":5,"groups":[]}`, ""},
		{"match unmatched group", fnMatchFn, fnArr("b", fnRe("(a)?b"), fnU), `{"match":"b","index":0,"groups":[null]}`, ""},
		{"match empty first only", fnMatchFn, fnArr("", fnRe("x*"), fnU), `{"match":"","index":0,"groups":[]}`, ""},
		{"match empty then more", fnMatchFn, fnArr("abc", fnRe("x*"), fnU), "", "D1004"},
		{"match empty after match", fnMatchFn, fnArr("aab", fnRe("a*"), fnU), "", "D1004"},
		{"match anchored not again", fnMatchFn, fnArr("aab", fnRe("^a*"), fnU), `{"match":"aa","index":0,"groups":[]}`, ""},
		{"match word boundary", fnMatchFn, fnArr("ab ab", fnRe(`\bab`), fnU), `[{"match":"ab","index":0,"groups":[]},{"match":"ab","index":3,"groups":[]}]`, ""},
		{"match no boundary inside", fnMatchFn, fnArr("abab", fnRe(`\bab`), fnU), `{"match":"ab","index":0,"groups":[]}`, ""},
		{"match custom matcher", fnMatchFn, fnArr("abc", matcher, fnU), `{"match":"b","index":1,"groups":[]}`, ""},
		{"match bad matcher", fnMatchFn, fnArr("abc", fnLambda(1, func([]any) any { return "x" }), fnU), "", "T1010"},

		{"split string", fnSplit, fnArr("a,b,,c", ",", fnU), `["a","b","","c"]`, ""},
		{"split one", fnSplit, fnArr("abc", ",", fnU), `["abc"]`, ""},
		{"split empty separator", fnSplit, fnArr("aé😀", "", fnU), `["a","é","😀"]`, ""},
		{"split empty string", fnSplit, fnArr("", ",", fnU), `[""]`, ""},
		{"split limit", fnSplit, fnArr("a,b,c", ",", 2.0), `["a","b"]`, ""},
		{"split limit fraction", fnSplit, fnArr("a,b,c", ",", 1.5), `["a"]`, ""},
		{"split limit 0", fnSplit, fnArr("a,b,c", ",", 0.0), `[]`, ""},
		{"split negative limit", fnSplit, fnArr("a,b", ",", -1.0), "", "D3020"},
		{"split regex", fnSplit, fnArr("a1b22c", fnRe(`\d+`), fnU), `["a","b","c"]`, ""},
		{"split regex limit", fnSplit, fnArr("a1b22c", fnRe(`\d+`), 2.0), `["a","b"]`, ""},
		{"split regex limit fraction", fnSplit, fnArr("a,b,c", fnRe(","), 1.5), `["a","b"]`, ""},
		{"split regex none", fnSplit, fnArr("abc", fnRe(`\d`), fnU), `["abc"]`, ""},
		{"split regex at ends", fnSplit, fnArr(",a,", fnRe(","), fnU), `["","a",""]`, ""},

		{"replace string", fnReplace, fnArr("a.b.c", ".", "-", fnU), `"a-b-c"`, ""},
		{"replace string no dollar", fnReplace, fnArr("abc", "b", "$0$$", fnU), `"a$0$$c"`, ""},
		{"replace string limit", fnReplace, fnArr("aaa", "a", "b", 2.0), `"bba"`, ""},
		{"replace empty pattern", fnReplace, fnArr("abc", "", "x", fnU), "", "D3010"},
		{"replace negative limit", fnReplace, fnArr("abc", "b", "x", -1.0), "", "D3011"},
		{"replace limit 0", fnReplace, fnArr("abc", "b", "x", 0.0), `"abc"`, ""},
		{"replace undefined", fnReplace, fnArr(fnU, "b", "x", fnU), "undefined", ""},
		{"replace regex groups", fnReplace, fnArr("John Smith", fnRe(`(\w+)\s(\w+)`), "$2, $1", fnU), `"Smith, John"`, ""},
		{"replace $0 and $$", fnReplace, fnArr("abc", fnRe("b"), "[$0|$$]", fnU), `"a[b|$]c"`, ""},
		{"replace $ at end", fnReplace, fnArr("abc", fnRe("b"), "x$", fnU), `"ax$c"`, ""},
		{"replace $ letter", fnReplace, fnArr("abc", fnRe("b"), "$x", fnU), `"a$xc"`, ""},
		{"replace missing group", fnReplace, fnArr("abc", fnRe("b"), "<$1>", fnU), `"a<>c"`, ""},
		{"replace group beyond count", fnReplace, fnArr("abc", fnRe("(b)"), "<$2>", fnU), `"a<>c"`, ""},
		{"replace $12 with one group", fnReplace, fnArr("abc", fnRe("(b)"), "<$12>", fnU), `"a<b2>c"`, ""},
		{"replace $10 with ten groups", fnReplace, fnArr("abcdefghij", fnRe("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)"), "$10$1", fnU), `"ja"`, ""},
		{"replace $11 with ten groups", fnReplace, fnArr("abcdefghij", fnRe("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)"), "$11", fnU), `"a1"`, ""},
		{"replace unmatched group", fnReplace, fnArr("b", fnRe("(a)?b"), "[$1]", fnU), `"[]"`, ""},
		{"replace regex limit", fnReplace, fnArr("aaa", fnRe("a"), "b", 2.0), `"bba"`, ""},
		{"replace function", fnReplace, fnArr("a1b2", fnRe(`\d`), fnLambda(1, func(args []any) any {
			m := args[0].(interface{ Get(string) (any, bool) })
			s, _ := m.Get("match")
			return "<" + s.(string) + ">"
		}), fnU), `"a<1>b<2>"`, ""},
		{"replace function non-string", fnReplace, fnArr("a1", fnRe(`\d`), fnLambda(1, func([]any) any { return 5.0 }), fnU), "", "D3012"},
		{"replace empty match", fnReplace, fnArr("abc", fnRe("x*"), "-", fnU), "", "D1004"},
		{"replace no match", fnReplace, fnArr("abc", fnRe("x"), "-", fnU), `"abc"`, ""},
	})
}

func TestFnSubstituteParsesLikeParseInt(t *testing.T) {
	t.Parallel()
	groups := make([]any, 10)
	for i := range groups {
		groups[i] = string(rune('a' + i))
	}
	m := &fnMatch{text: "M", groups: groups}
	tests := []struct{ in, want string }{
		{"$1", "a"},
		{"$10", "j"},
		{"$ 1", "a1"},   // parseInt(" 1") is 1 but only one character is consumed
		{"$-1x", "x"},   // parseInt("-1") names no group and consumes two characters
		{"$+1x", "a1x"}, // group 1, but String(1) consumes only the "+"
		{"$0$", "M$"},
		{"$$1", "$1"},
	}
	for _, tc := range tests {
		if got := fnSubstitute(tc.in, m); got != tc.want {
			t.Errorf("fnSubstitute(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}
