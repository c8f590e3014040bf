package sfnlocal

import (
	"slices"
	"testing"
	"time"
)

func TestDataFlow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, def, input, want string
	}{
		{"pass result path", `{"StartAt":"A","States":{"A":{"Type":"Pass","Result":{"x":1},"ResultPath":"$.r","End":true}}}`,
			`{"in":1}`, `{"in":1,"r":{"x":1}}`},
		{"result path null discards", `{"StartAt":"A","States":{"A":{"Type":"Pass","Result":2,"ResultPath":null,"End":true}}}`,
			`{"in":1}`, `{"in":1}`},
		{"default result path replaces", `{"StartAt":"A","States":{"A":{"Type":"Pass","Result":[1,2],"End":true}}}`,
			`{"in":1}`, `[1,2]`},
		{"input and output path", `{"StartAt":"A","States":{"A":{"Type":"Pass","InputPath":"$.a","OutputPath":"$.b","End":true}}}`,
			`{"a":{"b":{"c":3}}}`, `{"c":3}`},
		{"parameters with context and intrinsic", `{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"v.$":"$.v","name.$":"$$.State.Name","msg.$":"States.Format('hi {}', $.v)","static":"s"},"End":true}}}`,
			`{"v":"x"}`, `{"v":"x","name":"A","msg":"hi x","static":"s"}`},
		{"variables across states", `{"StartAt":"A","States":{
			"A":{"Type":"Pass","Assign":{"who.$":"$.user","n":1},"Next":"B"},
			"B":{"Type":"Pass","Parameters":{"w.$":"$who","n.$":"$n"},"End":true}}}`,
			`{"user":"ann"}`, `{"w":"ann","n":1}`},
		{"jsonata output and assign", `{"QueryLanguage":"JSONata","StartAt":"A","States":{
			"A":{"Type":"Pass","Assign":{"total":"{% $states.input.a + $states.input.b %}"},"Output":{"sum":"{% $states.input.a + $states.input.b %}"},"Next":"B"},
			"B":{"Type":"Pass","Output":"{% {'t': $total, 'exec': $states.context.Execution.Name != ''} %}","End":true}}}`,
			`{"a":2,"b":3}`, `{"t":5,"exec":true}`},
		{"per-state query language", `{"StartAt":"A","States":{
			"A":{"Type":"Pass","Result":{"v":4},"Next":"B"},
			"B":{"Type":"Pass","QueryLanguage":"JSONata","Output":"{% $states.input.v * 2 %}","End":true}}}`,
			`{}`, `8`},
		{"assign sees values from state entry", `{"QueryLanguage":"JSONata","StartAt":"A","States":{
			"A":{"Type":"Pass","Assign":{"x":1},"Next":"B"},
			"B":{"Type":"Pass","Assign":{"x":2,"y":"{% $x %}"},"Next":"C"},
			"C":{"Type":"Pass","Output":{"x":"{% $x %}","y":"{% $y %}"},"End":true}}}`,
			`{}`, `{"x":2,"y":1}`},
		{"succeed applies paths", `{"StartAt":"A","States":{"A":{"Type":"Succeed","InputPath":"$.a","OutputPath":"$.b"}}}`,
			`{"a":{"b":true}}`, `true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			jsonEqual(t, succeeded(t, h.run(tt.def, tt.input)), tt.want)
		})
	}
}

func TestRuntimeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, def, input, wantErr string
	}{
		{"missing parameter path", `{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"x.$":"$.nope"},"End":true}}}`,
			`{}`, errRuntime},
		{"missing input path", `{"StartAt":"A","States":{"A":{"Type":"Pass","InputPath":"$.nope","End":true}}}`,
			`{}`, errRuntime},
		{"no choice matched", `{"StartAt":"A","States":{"A":{"Type":"Choice","Choices":[{"Variable":"$.n","NumericEquals":1,"Next":"B"}]},"B":{"Type":"Succeed"}}}`,
			`{"n":2}`, errNoChoiceMatched},
		{"jsonata failure", `{"QueryLanguage":"JSONata","StartAt":"A","States":{"A":{"Type":"Pass","Output":"{% $states.input.a.b %}","End":true}}}`,
			`{}`, errQueryEvaluation},
		{"runtime is not caught by States.ALL", `{"StartAt":"A","States":{
			"A":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"x.$":"$.nope"},"Catch":[{"ErrorEquals":["States.ALL"],"Next":"B"}],"End":true},
			"B":{"Type":"Succeed"}}}`, `{}`, errRuntime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, funcIntegration(nil))
			x := h.run(tt.def, tt.input)
			if x.Status != StatusFailed || x.Error != tt.wantErr {
				t.Fatalf("got %s %s (%s), want FAILED %s", x.Status, x.Error, x.Cause, tt.wantErr)
			}
		})
	}
}

func TestParameterPathCauseMatchesAWS(t *testing.T) {
	h := newHarness(t)
	x := h.run(`{"StartAt":"S","States":{"S":{"Type":"Pass","Parameters":{"JobName.$":"$.JobName"},"End":true}}}`, `{}`)
	want := "An error occurred while executing the state 'S' (entered at the event id #2). The JSONPath '$.JobName' specified for the field 'JobName.$' could not be found in the input '{}'"
	if x.Cause != want {
		t.Errorf("cause = %q\nwant    %q", x.Cause, want)
	}
}

func TestFailState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, def, input, wantErr, wantCause string
	}{
		{"static", `{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"Boom","Cause":"because"}}}`, `{}`, "Boom", "because"},
		{"paths", `{"StartAt":"F","States":{"F":{"Type":"Fail","ErrorPath":"$.e","CausePath":"States.Format('n={}', $.n)"}}}`, `{"e":"E1","n":3}`, "E1", "n=3"},
		{"jsonata", `{"QueryLanguage":"JSONata","StartAt":"F","States":{"F":{"Type":"Fail","Error":"{% $states.input.e %}","Cause":"static"}}}`, `{"e":"E2"}`, "E2", "static"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			x := h.run(tt.def, tt.input)
			if x.Status != StatusFailed || x.Error != tt.wantErr || x.Cause != tt.wantCause {
				t.Fatalf("got %s %q %q, want FAILED %q %q", x.Status, x.Error, x.Cause, tt.wantErr, tt.wantCause)
			}
			types := h.types(x.ExecutionArn)
			if want := []string{"ExecutionStarted", "FailStateEntered", "ExecutionFailed"}; !slices.Equal(types, want) {
				t.Errorf("history = %v, want %v", types, want)
			}
		})
	}
}

func TestChoiceState(t *testing.T) {
	t.Parallel()
	def := `{"StartAt":"C","States":{
		"C":{"Type":"Choice","Choices":[
			{"And":[{"Variable":"$.kind","StringEquals":"a"},{"Not":{"Variable":"$.n","NumericLessThan":10}}],"Next":"Big"},
			{"Or":[{"Variable":"$.kind","StringMatches":"b*"},{"Variable":"$.missing","IsPresent":true}],"Next":"B"},
			{"Variable":"$.n","NumericEqualsPath":"$.m","Next":"Same"}
		],"Default":"Other"},
		"Big":{"Type":"Pass","Result":"big","End":true},
		"B":{"Type":"Pass","Result":"b","End":true},
		"Same":{"Type":"Pass","Result":"same","End":true},
		"Other":{"Type":"Pass","Result":"other","End":true}}}`
	tests := []struct{ input, want string }{
		{`{"kind":"a","n":10,"m":0}`, `"big"`},
		{`{"kind":"a","n":9,"m":9}`, `"same"`},
		{`{"kind":"bee","n":1,"m":0}`, `"b"`},
		{`{"kind":"c","n":1,"m":2}`, `"other"`},
	}
	h := newHarness(t)
	sm := h.create(def)
	for _, tt := range tests {
		jsonEqual(t, succeeded(t, h.wait(h.start(sm, tt.input))), tt.want)
	}
}

func TestChoiceJSONata(t *testing.T) {
	h := newHarness(t)
	x := h.run(`{"QueryLanguage":"JSONata","StartAt":"C","States":{
		"C":{"Type":"Choice","Choices":[{"Condition":"{% $states.input.n > 1 %}","Next":"Y","Assign":{"v":"yes"},"Output":{"o":1}}],"Default":"N"},
		"Y":{"Type":"Pass","Output":"{% [$v, $states.input.o] %}","End":true},
		"N":{"Type":"Fail","Error":"No"}}}`, `{"n":2}`)
	jsonEqual(t, succeeded(t, x), `["yes",1]`)
}

func TestCompareOperators(t *testing.T) {
	t.Parallel()
	tests := []struct {
		op         string
		v, operand any
		want       bool
	}{
		{"StringEquals", "a", "a", true},
		{"StringEquals", "a", "b", false},
		{"StringEquals", 1.0, "1", false},
		{"StringLessThan", "a", "b", true},
		{"StringGreaterThan", "b", "a", true},
		{"StringLessThanEquals", "a", "a", true},
		{"StringGreaterThanEquals", "a", "b", false},
		{"NumericEquals", 1.0, 1.0, true},
		{"NumericLessThan", 1.0, 2.0, true},
		{"NumericGreaterThan", 1.0, 2.0, false},
		{"NumericLessThanEquals", 2.0, 2.0, true},
		{"NumericGreaterThanEquals", 3.0, 2.0, true},
		{"NumericEquals", "1", 1.0, false},
		{"BooleanEquals", true, true, true},
		{"BooleanEquals", "true", true, false},
		{"TimestampEquals", "2024-01-01T00:00:00Z", "2024-01-01T01:00:00+01:00", true},
		{"TimestampLessThan", "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z", true},
		{"TimestampGreaterThan", "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z", false},
		{"TimestampLessThanEquals", "2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z", true},
		{"TimestampGreaterThanEquals", "2024-01-03T00:00:00Z", "2024-01-02T00:00:00Z", true},
		{"TimestampEquals", "2024-01-01", "2024-01-01", false},
		{"StringMatches", "log-2024.txt", "log-*.txt", true},
		{"StringMatches", "log.txt", "log-*.txt", false},
		{"StringMatches", "a*b", `a\*b`, true},
		{"StringMatches", "axb", `a\*b`, false},
		{"StringMatches", `a\b`, `a\\b`, true},
		{"StringMatches", "anything", "*", true},
		{"IsNull", nil, true, true},
		{"IsNull", 1.0, true, false},
		{"IsNumeric", 1.0, true, true},
		{"IsNumeric", "1", false, true},
		{"IsString", "s", true, true},
		{"IsBoolean", false, true, true},
		{"IsTimestamp", "2024-01-01T00:00:00Z", true, true},
		{"IsTimestamp", "yesterday", true, false},
	}
	for _, tt := range tests {
		if got := compare(tt.op, tt.v, tt.operand); got != tt.want {
			t.Errorf("%s(%v, %v) = %v, want %v", tt.op, tt.v, tt.operand, got, tt.want)
		}
	}
}

func TestWaitState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, state, input string
		advance            time.Duration
	}{
		{"seconds", `{"Type":"Wait","Seconds":30,"End":true}`, `{}`, 30 * time.Second},
		{"seconds path", `{"Type":"Wait","SecondsPath":"$.s","End":true}`, `{"s":5}`, 5 * time.Second},
		{"timestamp", `{"Type":"Wait","Timestamp":"2025-01-02T04:00:00Z","End":true}`, `{}`, 56*time.Minute - 5*time.Second},
		{"timestamp path", `{"Type":"Wait","TimestampPath":"$.t","End":true}`, `{"t":"2025-01-02T03:05:05Z"}`, time.Minute},
		{"jsonata seconds", `{"Type":"Wait","QueryLanguage":"JSONata","Seconds":"{% $states.input.s * 2 %}","End":true}`, `{"s":5}`, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			arn := h.start(h.create(`{"StartAt":"W","States":{"W":`+tt.state+`}}`), tt.input)
			h.advance(2, tt.advance-time.Millisecond) // execution limit + wait
			x, _ := h.e.DescribeExecution(ctx(t), arn)
			if x.Status != StatusRunning {
				t.Fatalf("ended early: %s", x.Status)
			}
			h.clock.Advance(time.Millisecond)
			succeeded(t, h.wait(arn))
			want := []string{"ExecutionStarted", "WaitStateEntered", "WaitStateExited", "ExecutionSucceeded"}
			if got := h.types(arn); !slices.Equal(got, want) {
				t.Errorf("history = %v, want %v", got, want)
			}
		})
	}
}

func TestStopDuringWait(t *testing.T) {
	h := newHarness(t)
	arn := h.start(h.create(`{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":100,"End":true}}}`), `{}`)
	if err := h.clock.BlockUntil(ctx(t), 2); err != nil { // execution limit + wait
		t.Fatal(err)
	}
	if _, err := h.e.StopExecution(ctx(t), StopExecutionInput{ExecutionArn: arn, Error: "E", Cause: "C"}); err != nil {
		t.Fatal(err)
	}
	x := h.wait(arn)
	if x.Status != StatusAborted || x.Error != "E" || x.Cause != "C" {
		t.Fatalf("got %+v", x)
	}
	want := []string{"ExecutionStarted", "WaitStateEntered", "WaitStateAborted", "ExecutionAborted"}
	if got := h.types(arn); !slices.Equal(got, want) {
		t.Errorf("history = %v, want %v", got, want)
	}
	if n := h.clock.Pending(); n != 0 {
		t.Errorf("%d timers left pending", n)
	}
}
