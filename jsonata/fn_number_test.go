package jsonata

import (
	"testing"
)

func TestFnNumeric(t *testing.T) {
	t.Parallel()
	runFnCases(t, []fnCase{
		{"number of number", fnNumber, fnArr(5.5), "5.5", ""},
		{"number of string", fnNumber, fnArr("-12.5e2"), "-1250", ""},
		{"number of true", fnNumber, fnArr(true), "1", ""},
		{"number of false", fnNumber, fnArr(false), "0", ""},
		{"number hex", fnNumber, fnArr("0xFF"), "255", ""},
		{"number octal", fnNumber, fnArr("0o17"), "15", ""},
		{"number binary", fnNumber, fnArr("0B101"), "5", ""},
		{"number hex trailing space", fnNumber, fnArr("0x10 "), "16", ""},
		{"number big hex", fnNumber, fnArr("0x1fffffffffffff1"), "144115188075855860", ""},
		{"number loose hex is NaN", fnNumber, fnArr("0x1G"), "null", ""},
		{"number leading space", fnNumber, fnArr(" 1"), "", "D3030"},
		{"number plus sign", fnNumber, fnArr("+1"), "", "D3030"},
		{"number dot", fnNumber, fnArr("1."), "", "D3030"},
		{"number overflow", fnNumber, fnArr("1e400"), "", "D3030"},
		{"number empty", fnNumber, fnArr(""), "", "D3030"},
		{"number undefined", fnNumber, fnArr(fnU), "undefined", ""},
		{"abs", fnAbs, fnArr(-3.5), "3.5", ""},
		{"floor", fnFloor, fnArr(-3.5), "-4", ""},
		{"ceil", fnCeil, fnArr(-3.5), "-3", ""},
		{"ceil undefined", fnCeil, fnArr(fnU), "undefined", ""},
		{"round half even", fnRound, fnArr(2.5, fnU), "2", ""},
		{"round half even up", fnRound, fnArr(3.5, fnU), "4", ""},
		{"round negative half", fnRound, fnArr(-2.5, fnU), "-2", ""},
		{"round negative half odd", fnRound, fnArr(-3.5, fnU), "-4", ""},
		{"round to zero", fnRound, fnArr(-0.4, fnU), "0", ""},
		{"round places", fnRound, fnArr(3.14159, 3.0), "3.142", ""},
		{"round decimal half", fnRound, fnArr(2.675, 2.0), "2.68", ""},
		{"round even places", fnRound, fnArr(0.125, 2.0), "0.12", ""},
		{"round negative places", fnRound, fnArr(1250.0, -2.0), "1200", ""},
		{"round exponent form", fnRound, fnArr(1e21, 2.0), "1e+21", ""},
		{"round tiny", fnRound, fnArr(1.5e-7, 7.0), "2e-7", ""},
		{"round fraction precision", fnRound, fnArr(1.5, 1.5), "null", ""},
		{"sqrt", fnSqrt, fnArr(16.0), "4", ""},
		{"sqrt negative", fnSqrt, fnArr(-1.0), "", "D3060"},
		{"power", fnPowerFn, fnArr(2.0, 10.0), "1024", ""},
		{"power negative base", fnPowerFn, fnArr(-2.0, 3.0), "-8", ""},
		{"power root of negative", fnPowerFn, fnArr(-8.0, 1.0/3), "", "D3061"},
		{"power overflow", fnPowerFn, fnArr(10.0, 400.0), "", "D3061"},
		{"power zero to negative", fnPowerFn, fnArr(0.0, -1.0), "", "D3061"},
		{"power underflow", fnPowerFn, fnArr(10.0, -400.0), "0", ""},
		{"random", fnRandom, fnArr(), "0.05", ""},
	})
}

func TestFnAggregate(t *testing.T) {
	t.Parallel()
	runFnCases(t, []fnCase{
		{"sum", fnSum, fnArr(fnArr(1.0, 2.5, -1.0)), "2.5", ""},
		{"sum empty", fnSum, fnArr(fnArr()), "0", ""},
		{"sum undefined", fnSum, fnArr(fnU), "undefined", ""},
		{"sum float order", fnSum, fnArr(fnArr(0.1, 0.2, 0.3)), "0.6000000000000001", ""},
		{"count", fnCount, fnArr(fnArr(1.0, "a", nil)), "3", ""},
		{"count undefined", fnCount, fnArr(fnU), "0", ""},
		{"max", fnMax, fnArr(fnArr(1.0, 7.0, -3.0)), "7", ""},
		{"max empty", fnMax, fnArr(fnArr()), "undefined", ""},
		{"min", fnMin, fnArr(fnArr(1.0, 7.0, -3.0)), "-3", ""},
		{"min undefined", fnMin, fnArr(fnU), "undefined", ""},
		{"average", fnAverage, fnArr(fnArr(1.0, 2.0, 4.0)), "2.3333333333333335", ""},
		{"average empty", fnAverage, fnArr(fnArr()), "undefined", ""},
	})
}

func TestFnBooleanAndType(t *testing.T) {
	t.Parallel()
	fn := &Builtin{Name: "f"}
	runFnCases(t, []fnCase{
		{"boolean empty string", fnBooleanFn, fnArr(""), "false", ""},
		{"boolean string", fnBooleanFn, fnArr("0"), "true", ""},
		{"boolean zero", fnBooleanFn, fnArr(0.0), "false", ""},
		{"boolean null", fnBooleanFn, fnArr(nil), "false", ""},
		{"boolean empty array", fnBooleanFn, fnArr(fnArr()), "false", ""},
		{"boolean array of falsy", fnBooleanFn, fnArr(fnArr(0.0, "", false)), "false", ""},
		{"boolean array with truthy", fnBooleanFn, fnArr(fnArr(0.0, "x")), "true", ""},
		{"boolean nested single", fnBooleanFn, fnArr(fnArr(fnArr(0.0))), "false", ""},
		{"boolean empty object", fnBooleanFn, fnArr(fnObj()), "false", ""},
		{"boolean object", fnBooleanFn, fnArr(fnObj("a", 0.0)), "true", ""},
		{"boolean function", fnBooleanFn, fnArr(fn), "false", ""},
		{"boolean undefined", fnBooleanFn, fnArr(fnU), "undefined", ""},
		{"not", fnNot, fnArr("x"), "false", ""},
		{"not undefined", fnNot, fnArr(fnU), "undefined", ""},
		{"exists", fnExists, fnArr(nil), "true", ""},
		{"exists undefined", fnExists, fnArr(fnU), "false", ""},
		{"type number", fnType, fnArr(1.0), `"number"`, ""},
		{"type null", fnType, fnArr(nil), `"null"`, ""},
		{"type array", fnType, fnArr(fnArr()), `"array"`, ""},
		{"type object", fnType, fnArr(fnObj()), `"object"`, ""},
		{"type function", fnType, fnArr(fn), `"function"`, ""},
		{"type regex", fnType, fnArr(fnRe("a")), `"function"`, ""},
		{"type undefined", fnType, fnArr(fnU), "undefined", ""},
		{"error", fnErrorFn, fnArr("boom"), "", "D3137"},
		{"assert true", fnAssert, fnArr(true, "m"), "undefined", ""},
		{"assert false", fnAssert, fnArr(false, "m"), "", "D3141"},
		{"assert undefined", fnAssert, fnArr(fnU, fnU), "", "D3141"},
	})
}

func TestFnErrorMessages(t *testing.T) {
	t.Parallel()
	c := &Call{Name: "f", env: &fnTestEnv{}}
	tests := []struct {
		name string
		err  func() error
		want string
	}{
		{"error default", func() error { _, err := fnErrorFn(c, fnArr(fnU)); return err }, "$error() function evaluated"},
		{"error empty", func() error { _, err := fnErrorFn(c, fnArr("")); return err }, "$error() function evaluated"},
		{"assert default", func() error { _, err := fnAssert(c, fnArr(false, fnU)); return err }, "$assert() statement failed"},
		{"number", func() error { _, err := fnNumber(c, fnArr("x\"")); return err }, `Unable to cast value to a number: "x\""`},
		{"sqrt", func() error { _, err := fnSqrt(c, fnArr(-2.5)); return err }, "The sqrt function cannot be applied to a negative number: -2.5"},
		{"power", func() error { _, err := fnPowerFn(c, fnArr(10.0, 1e3)); return err },
			"The power function has resulted in a value that cannot be represented as a JSON number: base=10, exponent=1000"},
	}
	for _, tc := range tests {
		e, ok := tc.err().(*Error)
		if !ok || e.Message != tc.want {
			t.Errorf("%s: got %v; want message %q", tc.name, e, tc.want)
		}
	}
}
