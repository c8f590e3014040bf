package sfnlocal

import (
	"slices"
	"strings"
	"testing"
)

func TestParallel(t *testing.T) {
	h := newHarness(t)
	x := h.run(`{"StartAt":"P","States":{"P":{"Type":"Parallel","ResultPath":"$.out","End":true,"Branches":[
		{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"a.$":"$.v"},"End":true}}},
		{"StartAt":"B","States":{"B":{"Type":"Wait","Seconds":0,"Next":"B2"},"B2":{"Type":"Pass","Result":"b","End":true}}}]}}}`, `{"v":1}`)
	jsonEqual(t, succeeded(t, x), `{"v":1,"out":[{"a":1},"b"]}`)
	got := h.types(x.ExecutionArn)
	if got[2] != "ParallelStateStarted" || got[len(got)-3] != "ParallelStateSucceeded" || got[len(got)-2] != "ParallelStateExited" {
		t.Errorf("history = %v", got)
	}
}

func TestParallelBranchFailurePropagatesItsError(t *testing.T) {
	h := newHarness(t)
	def := `{"StartAt":"P","States":{"P":{"Type":"Parallel","End":true,%s"Branches":[
		{"StartAt":"A","States":{"A":{"Type":"Wait","Seconds":1000,"End":true}}},
		{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"BranchBroke","Cause":"bad"}}}]},
		"Caught":{"Type":"Pass","End":true}}}`
	x := h.run(strings.Replace(strings.Replace(def, ",\n\t\t\"Caught\":{\"Type\":\"Pass\",\"End\":true}", "", 1), "%s", "", 1), `{}`)
	if x.Status != StatusFailed || x.Error != "BranchBroke" || x.Cause != "bad" {
		t.Fatalf("got %s %s %s", x.Status, x.Error, x.Cause)
	}
	types := h.types(x.ExecutionArn)
	if !slices.Contains(types, "ParallelStateFailed") {
		t.Errorf("history = %v", types)
	}
	x = h.run(strings.Replace(def, "%s", `"Catch":[{"ErrorEquals":["BranchBroke"],"Next":"Caught"}],`, 1), `{}`)
	jsonEqual(t, succeeded(t, x), `{"Error":"BranchBroke","Cause":"bad"}`)
}

func TestInlineMap(t *testing.T) {
	h := newHarness(t)
	x := h.run(`{"StartAt":"M","States":{"M":{"Type":"Map","ItemsPath":"$.items","MaxConcurrency":2,
		"ItemSelector":{"v.$":"$$.Map.Item.Value","i.$":"$$.Map.Item.Index","k.$":"$.k"},
		"ItemProcessor":{"ProcessorConfig":{"Mode":"INLINE"},"StartAt":"D","States":{"D":{"Type":"Pass","Parameters":{"r.$":"States.MathAdd($.v, $.i)","k.$":"$.k"},"End":true}}},
		"ResultPath":"$.out","End":true}}}`, `{"k":"z","items":[10,20,30]}`)
	jsonEqual(t, succeeded(t, x), `{"k":"z","items":[10,20,30],"out":[{"r":10,"k":"z"},{"r":21,"k":"z"},{"r":32,"k":"z"}]}`)
	events := h.events(x.ExecutionArn)
	if events[2].Type != "MapStateStarted" || events[2].Details.(*MapStateStartedEventDetails).Length != 3 {
		t.Errorf("MapStateStarted = %+v", events[2])
	}
	var iterations int
	for _, ev := range events {
		if ev.Type == "MapIterationSucceeded" {
			iterations++
		}
	}
	if iterations != 3 {
		t.Errorf("%d MapIterationSucceeded events", iterations)
	}
}

func TestMapJSONataAndVariables(t *testing.T) {
	h := newHarness(t)
	x := h.run(`{"QueryLanguage":"JSONata","StartAt":"S","States":{
		"S":{"Type":"Pass","Assign":{"factor":3},"Next":"M"},
		"M":{"Type":"Map","Items":"{% $states.input.xs %}","ItemSelector":{"x":"{% $states.context.Map.Item.Value %}"},
			"ItemProcessor":{"StartAt":"D","States":{"D":{"Type":"Pass","Assign":{"inner":1},"Output":"{% $states.input.x * $factor %}","End":true}}},
			"Next":"After"},
		"After":{"Type":"Pass","Output":"{% {'out': $states.input, 'innerVisible': $exists($inner)} %}","End":true}}}`, `{"xs":[1,2]}`)
	jsonEqual(t, succeeded(t, x), `{"out":[3,6],"innerVisible":false}`)
}

func TestEmptyMap(t *testing.T) {
	h := newHarness(t)
	x := h.run(`{"StartAt":"M","States":{"M":{"Type":"Map","ItemProcessor":{"StartAt":"D","States":{"D":{"Type":"Pass","End":true}}},"End":true}}}`, `[]`)
	jsonEqual(t, succeeded(t, x), `[]`)
}

func TestMapIterationFailure(t *testing.T) {
	h := newHarness(t)
	x := h.run(`{"StartAt":"M","States":{"M":{"Type":"Map","ItemProcessor":{"StartAt":"C","States":{
		"C":{"Type":"Choice","Choices":[{"Variable":"$","NumericEquals":2,"Next":"F"}],"Default":"OK"},
		"F":{"Type":"Fail","Error":"Two"},"OK":{"Type":"Pass","End":true}}},"End":true}}}`, `[1,2,3]`)
	if x.Status != StatusFailed || x.Error != "Two" {
		t.Fatalf("got %s %s", x.Status, x.Error)
	}
	types := h.types(x.ExecutionArn)
	if !slices.Contains(types, "MapIterationFailed") || !slices.Contains(types, "MapStateFailed") {
		t.Errorf("history = %v", types)
	}
}

func TestDistributedMap(t *testing.T) {
	t.Parallel()
	const def = `{"StartAt":"M","States":{"M":{"Type":"Map",%s
		"ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"STANDARD"},"StartAt":"C","States":{
			"C":{"Type":"Choice","Choices":[{"Variable":"$.Items[0]","NumericGreaterThan":7,"Next":"F"}],"Default":"OK"},
			"F":{"Type":"Fail","Error":"Big"},"OK":{"Type":"Pass","End":true}}},"End":true}}}`
	tests := []struct {
		name, fields, wantStatus, wantErr string
	}{
		{"within tolerance", `"ItemBatcher":{"MaxItemsPerBatch":2,"BatchInput":{"b":1}},"ToleratedFailureCount":1,`, StatusSucceeded, ""},
		{"above count", `"ItemBatcher":{"MaxItemsPerBatch":1},"ToleratedFailureCount":1,`, StatusFailed, errExceedTolerated},
		{"above percentage", `"ItemBatcher":{"MaxItemsPerBatch":1},"ToleratedFailurePercentage":10,`, StatusFailed, errExceedTolerated},
		{"no tolerance", `"ItemBatcher":{"MaxItemsPerBatch":1},`, StatusFailed, errExceedTolerated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			x := h.run(strings.Replace(def, "%s", tt.fields, 1), `[1,2,3,4,5,6,7,8,9]`)
			if x.Status != tt.wantStatus || x.Error != tt.wantErr {
				t.Fatalf("got %s %s (%s)", x.Status, x.Error, x.Cause)
			}
			types := h.types(x.ExecutionArn)
			if !slices.Contains(types, "MapRunStarted") || slices.Contains(types, "MapIterationStarted") {
				t.Errorf("history = %v", types)
			}
			if tt.wantStatus == StatusSucceeded && !strings.Contains(x.Output, `{"BatchInput":{"b":1},"Items":[1,2]}`) {
				t.Errorf("output = %s", x.Output)
			}
		})
	}
}
