package lang

import (
	"math"

	"github.com/sfnapprovals/approvals/workflow/sfnlocal/internal/jsonvalue"
)

// formatFunctions are the date/time and number formatting functions:
// $now, $millis, $fromMillis, $toMillis, $formatNumber, $formatBase,
// $formatInteger, $parseInteger. Signatures are jsonata-js's.
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

// fmtOptString is an optional string argument.
func fmtOptString(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok
}

// fmtNowMillis is the evaluation's instant in milliseconds since the epoch.
func fmtNowMillis(c *Call) float64 { return float64(c.Now().UnixMilli()) }

func fnNow(c *Call, args []any) (any, error) {
	picture, hasPicture := fmtOptString(args[0])
	zone, hasZone := fmtOptString(args[1])
	return fmtStringResult(fmtFormatDateTime(fmtNowMillis(c), picture, hasPicture, zone, hasZone))
}

func fnMillis(c *Call, _ []any) (any, error) { return fmtNowMillis(c), nil }

func fnFromMillis(_ *Call, args []any) (any, error) {
	millis, ok := args[0].(float64)
	if !ok {
		return Undefined, nil
	}
	picture, hasPicture := fmtOptString(args[1])
	zone, hasZone := fmtOptString(args[2])
	return fmtStringResult(fmtFormatDateTime(millis, picture, hasPicture, zone, hasZone))
}

func fnToMillis(c *Call, args []any) (any, error) {
	timestamp, ok := args[0].(string)
	if !ok {
		return Undefined, nil
	}
	picture, hasPicture := fmtOptString(args[1])
	if !hasPicture {
		return fmtNumberResult(fmtParseISO(timestamp))
	}
	millis, matched, err := fmtParseDateTime(timestamp, picture, fmtDate(fmtNowMillis(c)))
	if err != nil || !matched {
		return Undefined, err
	}
	return millis, nil
}

func fnFormatNumber(_ *Call, args []any) (any, error) {
	value, ok := args[0].(float64)
	picture, hasPicture := fmtOptString(args[1])
	if !ok || !hasPicture {
		return Undefined, nil
	}
	options, _ := args[2].(*jsonvalue.Object)
	return fmtStringResult(fmtFormatNumber(value, picture, options))
}

func fnFormatBase(_ *Call, args []any) (any, error) {
	value, ok := args[0].(float64)
	if !ok {
		return Undefined, nil
	}
	radix, hasRadix := args[1].(float64)
	return fmtStringResult(fmtFormatBase(value, radix, hasRadix))
}

func fnFormatInteger(_ *Call, args []any) (any, error) {
	value, ok := args[0].(float64)
	picture, hasPicture := fmtOptString(args[1])
	if !ok || !hasPicture {
		return Undefined, nil
	}
	p, err := analyseIntPicture(picture)
	if err != nil {
		return Undefined, err
	}
	return fmtStringResult(p.format(math.Floor(value)))
}

func fnParseInteger(_ *Call, args []any) (any, error) {
	value, ok := args[0].(string)
	picture, hasPicture := fmtOptString(args[1])
	if !ok || !hasPicture {
		return Undefined, nil
	}
	return fmtNumberResult(fmtParseInteger(value, picture))
}

func fmtStringResult(s string, err error) (any, error) {
	if err != nil {
		return Undefined, err
	}
	return s, nil
}

func fmtNumberResult(f float64, err error) (any, error) {
	if err != nil {
		return Undefined, err
	}
	return f, nil
}
