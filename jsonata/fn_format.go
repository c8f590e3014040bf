package jsonata

import (
	"errors"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
	"github.com/sfnapprovals/approvals/jsonata/internal/picture"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// fnFormatNumber is $formatNumber(number, picture, options).
func fnFormatNumber(_ *Call, args []any) (any, error) {
	value, ok := args[0].(float64)
	pic, hasPicture := args[1].(string)
	if !ok || !hasPicture {
		return Undefined, nil
	}
	options, _ := args[2].(*jsonvalue.Object)
	return pictureResult(picture.FormatNumber(value, pic, decimalSymbols(options)))
}

// decimalSymbols reads $formatNumber's options: each member's value as
// text, a number as JavaScript prints it and any array or object as
// "[object Object]".
func decimalSymbols(options *jsonvalue.Object) map[string]string {
	symbols := map[string]string{}
	options.Range(func(k string, v any) bool {
		switch v := v.(type) {
		case string:
			symbols[k] = v
		case float64:
			symbols[k] = js.NumberToString(v)
		case bool:
			symbols[k] = "false"
			if v {
				symbols[k] = "true"
			}
		case nil:
			symbols[k] = "null"
		default:
			symbols[k] = "[object Object]"
		}
		return true
	})
	return symbols
}

// fnFormatBase is $formatBase(number, radix): number rounded (halves to
// even) and written in radix (10 when undefined; rounded too); D3100
// unless 2 <= radix <= 36.
func fnFormatBase(_ *Call, args []any) (any, error) {
	value, ok := args[0].(float64)
	if !ok {
		return Undefined, nil
	}
	radix := 10.0
	if r, ok := args[1].(float64); ok {
		radix = roundHalfEven(r, 0)
	}
	if radix < 2 || radix > 36 {
		return Undefined, &Error{Code: "D3100", Value: radix,
			Message: "The radix of the formatBase function must be between 2 and 36.  It was given " + jsonStringify(radix)}
	}
	return js.ToRadix(roundHalfEven(value, 0), int(radix)), nil
}

// fnFormatInteger is $formatInteger(number, picture).
func fnFormatInteger(_ *Call, args []any) (any, error) {
	value, ok := args[0].(float64)
	pic, hasPicture := args[1].(string)
	if !ok || !hasPicture {
		return Undefined, nil
	}
	return pictureResult(picture.FormatInteger(value, pic))
}

// fnParseInteger is $parseInteger(string, picture).
func fnParseInteger(_ *Call, args []any) (any, error) {
	value, ok := args[0].(string)
	pic, hasPicture := args[1].(string)
	if !ok || !hasPicture {
		return Undefined, nil
	}
	return pictureResult(picture.ParseInteger(value, pic))
}

// pictureResult is a result of package picture as a built-in returns
// it: the value, or Undefined and the JSONata error.
func pictureResult[T string | float64](v T, err error) (any, error) {
	if err != nil {
		return Undefined, pictureError(err)
	}
	return v, nil
}

// pictureError turns an error of package picture into the JSONata error
// it stands for, code, message and value unchanged.
func pictureError(err error) error {
	var e *picture.Error
	if errors.As(err, &e) {
		return &Error{Code: e.Code, Message: e.Message, Value: e.Value}
	}
	return err
}
