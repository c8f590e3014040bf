package jsonata

import "testing"

func TestFnEncode(t *testing.T) {
	t.Parallel()
	runFnCases(t, []fnCase{
		{"base64encode", fnBase64Encode, fnArr("hello"), `"aGVsbG8="`, ""},
		{"base64encode latin1", fnBase64Encode, fnArr("é"), `"6Q=="`, ""},
		{"base64encode low byte of unit", fnBase64Encode, fnArr("€"), `"rA=="`, ""},
		{"base64encode undefined", fnBase64Encode, fnArr(fnU), "undefined", ""},
		{"base64decode", fnBase64Decode, fnArr("aGVsbG8="), `"hello"`, ""},
		{"base64decode bytes as latin1", fnBase64Decode, fnArr("4oKs"), "\"â\u0082¬\"", ""},
		{"base64decode no padding", fnBase64Decode, fnArr("YWJjZA"), `"abcd"`, ""},
		{"base64decode skips junk", fnBase64Decode, fnArr("Y.W J\nj"), `"abc"`, ""},
		{"base64decode stops at =", fnBase64Decode, fnArr("YQ=YWJj"), `"a"`, ""},
		{"base64decode url alphabet", fnBase64Decode, fnArr("--__"), `"ûïÿ"`, ""},
		{"base64decode one char", fnBase64Decode, fnArr("Y"), `""`, ""},

		{"encodeUrlComponent", fnEncodeURLComponent, fnArr("a b&c=d/é?!*'()~"), `"a%20b%26c%3Dd%2F%C3%A9%3F!*'()~"`, ""},
		{"encodeUrl", fnEncodeURL, fnArr("https://x.org/a b?q=é#f"), `"https://x.org/a%20b?q=%C3%A9#f"`, ""},
		{"encodeUrl emoji", fnEncodeURL, fnArr("😀"), `"%F0%9F%98%80"`, ""},
		{"encodeUrl invalid UTF-8", fnEncodeURL, fnArr("\xff"), "", "D3140"},
		{"decodeUrlComponent", fnDecodeURLComponent, fnArr("a%20b%2F%C3%A9%f0%9f%98%80"), `"a b/é😀"`, ""},
		{"decodeUrl keeps reserved", fnDecodeURL, fnArr("a%20b%2F%2f%3F%C3%A9"), `"a b%2F%2f%3Fé"`, ""},
		{"decode truncated", fnDecodeURLComponent, fnArr("%E0%A4%A"), "", "D3140"},
		{"decode bad hex", fnDecodeURLComponent, fnArr("%zz"), "", "D3140"},
		{"decode lone percent", fnDecodeURL, fnArr("100%"), "", "D3140"},
		{"decode continuation lead", fnDecodeURLComponent, fnArr("%80"), "", "D3140"},
		{"decode overlong", fnDecodeURLComponent, fnArr("%C0%80"), "", "D3140"},
		{"decode surrogate", fnDecodeURLComponent, fnArr("%ED%A0%80"), "", "D3140"},
		{"decode replacement char", fnDecodeURLComponent, fnArr("%EF%BF%BD"), `"�"`, ""},
		{"decode undefined", fnDecodeURL, fnArr(fnU), "undefined", ""},
	})
}

func TestFnMalformedURLMessage(t *testing.T) {
	t.Parallel()
	_, err := fnDecodeURL(&Call{Name: "alias", env: &fnTestEnv{}}, fnArr("%"))
	want := `Malformed URL passed to $decodeUrl(): "%"`
	if e, ok := err.(*Error); !ok || e.Message != want {
		t.Fatalf("got %v; want message %q", err, want)
	}
}
