// Package js reproduces the JavaScript (ECMAScript, as V8 implements it)
// that shows through jsonata-js's answers, so that package jsonata can
// answer as jsonata-js does:
//
//	number.go     String(n), n.toFixed(d), n.toString(radix)
//	parse.go      Number(s), parseInt(s), parseInt(s, 10)
//	precision.go  Number(n.toPrecision(15))
//	pow.go        Math.pow
//	date.go       Date.UTC and a Date's UTC fields
//	string.go     indexOf, substring, slice… with JavaScript's clamping
//	case.go       toUpperCase and toLowerCase (SpecialCasing included)
//	utf16.go      string order and length in UTF-16 code units
//	json.go       JSON.stringify of a string
//	keys.go       the order in which an object's keys are enumerated
//	space.go      the characters JavaScript counts as white space
//
// Each function names the operation it stands for and says where it
// departs from it. The package works on plain Go values and knows nothing
// of JSONata's; package jsonata and its picture package build on it.
package js
