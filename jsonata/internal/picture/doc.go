// Package picture formats and parses numbers and dates with XPath/XQuery
// picture strings, as jsonata-js 2.0.6 does for $formatNumber,
// $formatInteger, $parseInteger, $fromMillis and $toMillis. It follows
// "XPath and XQuery Functions and Operators 3.1" (F&O) — fn:format-number
// (§4.7), fn:format-integer (§4.6.1) and fn:format-dateTime (§9.8) —
// keeping jsonata-js's departures from it, since AWS Step Functions
// answers as jsonata-js does:
//
//	number_format.go, number_picture.go  FormatNumber: decimal pictures ("#,##0.00")
//	integer_format.go, integer_parse.go  FormatInteger, ParseInteger: integer pictures ("0001", "I", "w;o")
//	words.go                             numbers as English words, Roman numerals and letters
//	datetime_picture.go                  date/time pictures ("[D1o] [MNn] [Y]") and their markers
//	datetime_component.go                the values of date/time components, ISO week numbers included
//	datetime_format.go                   FormatDateTime, ParseOffset
//	datetime_parse.go                    ParseDateTime
//	iso.go                               ParseISO: $toMillis without a picture
//
// Dates are read and written in UTC plus a fixed offset, with JavaScript's
// Date arithmetic (package js). Functions take and return plain Go values;
// errors are *Error values carrying jsonata-js's code and message. All of
// it is safe for concurrent use.
package picture
