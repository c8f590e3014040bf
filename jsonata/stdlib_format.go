package jsonata

// formatFunctions are the date/time and number formatting functions:
// $now, $millis, $fromMillis, $toMillis, $formatNumber, $formatBase,
// $formatInteger, $parseInteger. Signatures are jsonata-js 2.0.6's; the
// pictures are package picture's.
func formatFunctions() []*Builtin {
	return []*Builtin{
		{Name: "now", Signature: "<s?s?:s>", Impl: fnNow},
		{Name: "millis", Signature: "<:n>", Impl: fnMillis},
		{Name: "fromMillis", Signature: "<n-s?s?:s>", Impl: fnFromMillis},
		{Name: "toMillis", Signature: "<s-s?:n>", Impl: fnToMillis},
		{Name: "formatNumber", Signature: "<n-so?:s>", Impl: fnFormatNumber},
		{Name: "formatBase", Signature: "<n-n?:s>", Impl: fnFormatBase},
		{Name: "formatInteger", Signature: "<n-s:s>", Impl: fnFormatInteger},
		{Name: "parseInteger", Signature: "<s-s:n>", Impl: fnParseInteger},
	}
}
