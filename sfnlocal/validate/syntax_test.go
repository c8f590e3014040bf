package validate

import "testing"

func TestCheckPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path  string
		rules pathRules
		ok    bool
	}{
		{"$", resultPath, true},
		{"$.a.b[0]['c d'][\"e\"]", resultPath, true},
		{"$.foo-bar", resultPath, true},
		{"$.a[*]", resultPath, false},
		{"$..a", resultPath, false},
		{"$.a[1:2]", resultPath, false},
		{"$.a[0,1]", resultPath, false},
		{"$$.Execution.Id", resultPath, false},
		{"$$.Execution.Id", valuePath, true},
		{"$myVar.items[0]", valuePath, true},
		{"$myVar", resultPath, false},
		{"$.a[*].b", anyPath, true},
		{"$..name", anyPath, true},
		{"$.a[?(@.price < 10)]", anyPath, true},
		{"$.a[-1:]", anyPath, true},
		{"$.a[0,2]", anyPath, true},
		{"$.", anyPath, false},
		{"$.a.", anyPath, false},
		{"$.a[", anyPath, false},
		{"$.a[]", anyPath, false},
		{"$.a[x]", anyPath, false},
		{"a.b", anyPath, false},
		{"$ .a", anyPath, false},
	}
	for _, tt := range tests {
		if err := checkPath(tt.path, tt.rules); (err == nil) != tt.ok {
			t.Errorf("checkPath(%q, %+v) = %v, want ok=%v", tt.path, tt.rules, err, tt.ok)
		}
	}
}

func TestCheckIntrinsic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		call string
		ok   bool
	}{
		{"States.UUID()", true},
		{"States.Format('Hello, {}', $.name)", true},
		{"States.Format('it\\'s {} \\{\\}', $$.Execution.Id)", true},
		{"States.Array(1, -2.5, true, null, 'x', $.a[0])", true},
		{"States.JsonMerge($.a, States.StringToJson($.b), false)", true},
		{"States.MathAdd($myVar, 1)", true},
		{"States.Nope()", false},
		{"States.Format('x'", false},
		{"States.Format('x)", false},
		{"States.Format(x)", false},
		{"States.Format('x') extra", false},
		{"Format('x')", false},
	}
	for _, tt := range tests {
		if err := checkIntrinsic(tt.call); (err == nil) != tt.ok {
			t.Errorf("checkIntrinsic(%q) = %v, want ok=%v", tt.call, err, tt.ok)
		}
	}
}

func TestLintJSONata(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr        string
		errorOutput bool
		code        string
	}{
		{"$states.input.items[value > 3]", false, ""},
		{"$sum($states.input.*.price) / 2", false, ""},
		{"$states.input.a.**.b", false, ""},
		{"($x := 1; $y := [1..5]; $x ~> $string())", false, ""},
		{"$count > 1 ? 'many' : 'few'", false, ""},
		{"function($v){ $v * 2 }", false, ""},
		{"/* note */ 1", false, ""},
		{"`odd name`.x", false, ""},
		{"$states.errorOutput.Error", true, ""},
		{"$states.errorOutputs", false, ""},
		{"", false, CodeInvalidJSONata},
		{"a[1,2)", false, CodeInvalidJSONata},
		{"1 +", false, CodeInvalidJSONata},
		{"$x :=", false, CodeInvalidJSONata},
		{"'open", false, CodeInvalidJSONata},
		{"`open", false, CodeInvalidJSONata},
		{"/* open", false, CodeInvalidJSONata},
		{"1)", false, CodeInvalidJSONata},
		{"$$", false, CodeUnsupportedJSONata},
		{"$states.errorOutput", false, CodeUnsupportedJSONata},
		// JSONata 2.x syntax and partial application parse.
		{"$states.input.items#$i[$i > 0]", false, ""},
		{"$states.input.items@$o.$o.id", false, ""},
		{"$states.input.a.b.%.c", false, ""},
		{"$substring(?, 1)", false, ""},
		{"$states.input.a / 2 / 4", false, ""},
		{"$match('ab', /a\\/b/i)", false, ""},
		{"'$$' & \"$states.errorOutput\" & `$$`", false, ""},
		// … and what Step Functions refuses is still found after it.
		{"$substring(?, 1) ~> $$", false, CodeUnsupportedJSONata},
		{"[1]#$i.($i / 2) ~> $states.errorOutput", false, CodeUnsupportedJSONata},
		{"$states.input.a / 2 & $$.x", false, CodeUnsupportedJSONata},
	}
	for _, tt := range tests {
		if code, msg := lintJSONata(tt.expr, tt.errorOutput); code != tt.code {
			t.Errorf("lintJSONata(%q) = %q %q, want code %q", tt.expr, code, msg, tt.code)
		}
	}
}
