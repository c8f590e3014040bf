package jsonata

// coreFunctions is the standard library except dates and number
// formatting: string, numeric, aggregation, boolean, array, object and
// higher-order functions. Signatures are jsonata-js 2.0.6's.
func coreFunctions() []*Builtin {
	return []*Builtin{
		// strings
		{Name: "string", Signature: "<x-b?:s>", Impl: fnString},
		{Name: "length", Signature: "<s-:n>", Impl: fnLength},
		{Name: "substring", Signature: "<s-nn?:s>", Impl: fnSubstring},
		{Name: "substringBefore", Signature: "<s-s:s>", Impl: fnSubstringBefore},
		{Name: "substringAfter", Signature: "<s-s:s>", Impl: fnSubstringAfter},
		{Name: "uppercase", Signature: "<s-:s>", Impl: fnUppercase},
		{Name: "lowercase", Signature: "<s-:s>", Impl: fnLowercase},
		{Name: "trim", Signature: "<s-:s>", Impl: fnTrim},
		{Name: "pad", Signature: "<s-ns?:s>", Impl: fnPad},
		{Name: "contains", Signature: "<s-(sf):b>", Impl: fnContains},
		{Name: "split", Signature: "<s-(sf)n?:a<s>>", Impl: fnSplit},
		{Name: "join", Signature: "<a<s>s?:s>", Impl: fnJoin},
		{Name: "match", Signature: "<s-f<s:o>n?:a<o>>", Impl: fnMatchFn},
		{Name: "replace", Signature: "<s-(sf)(sf)n?:s>", Impl: fnReplace},
		{Name: "base64encode", Signature: "<s-:s>", Impl: fnBase64Encode},
		{Name: "base64decode", Signature: "<s-:s>", Impl: fnBase64Decode},
		{Name: "encodeUrlComponent", Signature: "<s-:s>", Impl: fnEncodeURLComponent},
		{Name: "encodeUrl", Signature: "<s-:s>", Impl: fnEncodeURL},
		{Name: "decodeUrlComponent", Signature: "<s-:s>", Impl: fnDecodeURLComponent},
		{Name: "decodeUrl", Signature: "<s-:s>", Impl: fnDecodeURL},
		// numbers
		{Name: "number", Signature: "<(nsb)-:n>", Impl: fnNumber},
		{Name: "abs", Signature: "<n-:n>", Impl: fnAbs},
		{Name: "floor", Signature: "<n-:n>", Impl: fnFloor},
		{Name: "ceil", Signature: "<n-:n>", Impl: fnCeil},
		{Name: "round", Signature: "<n-n?:n>", Impl: fnRound},
		{Name: "power", Signature: "<n-n:n>", Impl: fnPowerFn},
		{Name: "sqrt", Signature: "<n-:n>", Impl: fnSqrt},
		{Name: "random", Signature: "<:n>", Impl: fnRandom},
		// aggregation
		{Name: "sum", Signature: "<a<n>:n>", Impl: fnSum},
		{Name: "max", Signature: "<a<n>:n>", Impl: fnMax},
		{Name: "min", Signature: "<a<n>:n>", Impl: fnMin},
		{Name: "average", Signature: "<a<n>:n>", Impl: fnAverage},
		{Name: "count", Signature: "<a:n>", Impl: fnCount},
		// boolean and type
		{Name: "boolean", Signature: "<x-:b>", Impl: fnBooleanFn},
		{Name: "not", Signature: "<x-:b>", Impl: fnNot},
		{Name: "exists", Signature: "<x:b>", Impl: fnExists},
		{Name: "type", Signature: "<x:s>", Impl: fnType},
		{Name: "error", Signature: "<s?:x>", Impl: fnErrorFn},
		{Name: "assert", Signature: "<bs?:x>", Impl: fnAssert},
		// arrays
		{Name: "append", Signature: "<xx:a>", Impl: fnAppend},
		{Name: "reverse", Signature: "<a:a>", Impl: fnReverse},
		{Name: "shuffle", Signature: "<a:a>", Impl: fnShuffle},
		{Name: "distinct", Signature: "<x:x>", Impl: fnDistinct},
		{Name: "zip", Signature: "<a+>", Impl: fnZip},
		{Name: "sort", Signature: "<af?:a>", Impl: fnSort},
		// objects
		{Name: "keys", Signature: "<x-:a<s>>", Impl: fnKeys},
		{Name: "lookup", Signature: "<x-s:x>", Impl: fnLookup},
		{Name: "spread", Signature: "<x-:a<o>>", Impl: fnSpread},
		{Name: "merge", Signature: "<a<o>:o>", Impl: fnMerge},
		{Name: "sift", Signature: "<o-f?:o>", Impl: fnSift},
		{Name: "each", Signature: "<o-f:a>", Impl: fnEach},
		{Name: "clone", Signature: "<(oa)-:o>", Impl: fnClone},
		// higher-order
		{Name: "map", Signature: "<af>", Impl: fnMap},
		{Name: "filter", Signature: "<af>", Impl: fnFilter},
		{Name: "single", Signature: "<af?>", Impl: fnSingle},
		{Name: "reduce", Signature: "<afj?:j>", Impl: fnReduce},
	}
}
