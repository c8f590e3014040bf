package sfnlocal

import (
	"fmt"
	"strings"
	"testing"
)

// exact fails unless got is want, byte for byte: member order counts.
func exact(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got  %s\n want %s", what, got, want)
	}
}

// TestMemberOrderThroughStates checks that every way a value moves through
// a JSONPath state keeps object members in the order AWS keeps them.
func TestMemberOrderThroughStates(t *testing.T) {
	t.Parallel()
	const in = `{"z":1,"r":0,"a":{"y":2,"b":3}}`
	tests := []struct {
		name, def, want string
	}{
		{"input passes through", `{"StartAt":"A","States":{"A":{"Type":"Pass","End":true}}}`, in},
		{"InputPath and OutputPath", `{"StartAt":"A","States":{"A":{"Type":"Pass","InputPath":"$.a","OutputPath":"$","End":true}}}`,
			`{"y":2,"b":3}`},
		{"Parameters in template order, .$ keys in place",
			`{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"zeta":1,"mid.$":"$.a","alpha":{"y":0,"x.$":"$.z"}},"End":true}}}`,
			`{"zeta":1,"mid":{"y":2,"b":3},"alpha":{"y":0,"x":1}}`},
		{"Result in written order", `{"StartAt":"A","States":{"A":{"Type":"Pass","Result":{"q":1,"c":2},"End":true}}}`,
			`{"q":1,"c":2}`},
		{"ResultPath replaces a key in place",
			`{"StartAt":"A","States":{"A":{"Type":"Pass","Result":{"q":1,"c":2},"ResultPath":"$.r","End":true}}}`,
			`{"z":1,"r":{"q":1,"c":2},"a":{"y":2,"b":3}}`},
		{"ResultPath replaces a nested key in place",
			`{"StartAt":"A","States":{"A":{"Type":"Pass","Result":"new","ResultPath":"$.a.y","End":true}}}`,
			`{"z":1,"r":0,"a":{"y":"new","b":3}}`},
		{"ResultPath appends a new key",
			`{"StartAt":"A","States":{"A":{"Type":"Pass","Result":"new","ResultPath":"$.a.m","End":true}}}`,
			`{"z":1,"r":0,"a":{"y":2,"b":3,"m":"new"}}`},
		{"ResultPath creates objects in path order",
			`{"StartAt":"A","States":{"A":{"Type":"Pass","Result":1,"ResultPath":"$.n.k","End":true}}}`,
			`{"z":1,"r":0,"a":{"y":2,"b":3},"n":{"k":1}}`},
		{"JsonMerge keeps the left order",
			`{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"m.$":"States.JsonMerge($, $.a, false)"},"End":true}}}`,
			`{"m":{"z":1,"r":0,"a":{"y":2,"b":3},"y":2,"b":3}}`},
		{"StringToJson and JsonToString keep the text order",
			`{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"s.$":"States.JsonToString($.a)","o.$":"States.StringToJson('{\"k\":1,\"c\":2}')"},"End":true}}}`,
			`{"s":"{\"y\":2,\"b\":3}","o":{"k":1,"c":2}}`},
		{"variables keep the order",
			`{"StartAt":"A","States":{"A":{"Type":"Pass","Assign":{"v.$":"$.a","w":{"q":1,"c":2}},"Next":"B"},
			"B":{"Type":"Pass","Parameters":{"v.$":"$v","w.$":"$w"},"End":true}}}`,
			`{"v":{"y":2,"b":3},"w":{"q":1,"c":2}}`},
		{"Catch error output is Error then Cause",
			`{"StartAt":"P","States":{"P":{"Type":"Parallel","ResultPath":"$.out","Branches":[
				{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"Broke","Cause":"why"}}}],
				"Catch":[{"ErrorEquals":["States.ALL"],"ResultPath":"$.r","Next":"E"}],"End":true},
			"E":{"Type":"Pass","End":true}}}`,
			`{"z":1,"r":{"Error":"Broke","Cause":"why"},"a":{"y":2,"b":3}}`},
		{"Parallel branch outputs keep the order",
			`{"StartAt":"P","States":{"P":{"Type":"Parallel","End":true,"Branches":[
				{"StartAt":"A","States":{"A":{"Type":"Pass","InputPath":"$.a","End":true}}},
				{"StartAt":"B","States":{"B":{"Type":"Pass","Parameters":{"k":1,"c.$":"$.z"},"End":true}}}]}}}`,
			`[{"y":2,"b":3},{"k":1,"c":1}]`},
		{"Map items, ItemSelector and results keep the order",
			`{"StartAt":"M","States":{"M":{"Type":"Map","ItemsPath":"$.list","ItemSelector":{"v.$":"$$.Map.Item.Value","i.$":"$$.Map.Item.Index","z.$":"$.z"},
				"ItemProcessor":{"StartAt":"D","States":{"D":{"Type":"Pass","End":true}}},"End":true}}}`,
			`[{"v":{"q":1,"c":2},"i":0,"z":9}]`},
		{"$$.Map.Item is Index then Value",
			`{"StartAt":"M","States":{"M":{"Type":"Map","ItemsPath":"$.list","ItemSelector":{"m.$":"$$.Map"},
				"ItemProcessor":{"StartAt":"D","States":{"D":{"Type":"Pass","End":true}}},"End":true}}}`,
			`[{"m":{"Item":{"Index":0,"Value":{"q":1,"c":2}}}}]`},
		{"ItemBatcher batches are BatchInput then Items",
			`{"StartAt":"M","States":{"M":{"Type":"Map","ItemsPath":"$.list","ItemBatcher":{"MaxItemsPerBatch":5,"BatchInput":{"k":1,"c.$":"$.z"}},
				"ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"STANDARD"},"StartAt":"D","States":{"D":{"Type":"Pass","End":true}}},"End":true}}}`,
			`[{"BatchInput":{"k":1,"c":9},"Items":[{"q":1,"c":2}]}]`},
		{"ItemBatcher without BatchInput",
			`{"StartAt":"M","States":{"M":{"Type":"Map","ItemsPath":"$.list","ItemBatcher":{"MaxItemsPerBatch":5},
				"ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"STANDARD"},"StartAt":"D","States":{"D":{"Type":"Pass","End":true}}},"End":true}}}`,
			`[{"Items":[{"q":1,"c":2}]}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			input := in
			if strings.Contains(tt.def, `"$.list"`) {
				input = `{"z":9,"list":[{"q":1,"c":2}]}`
			}
			exact(t, "output", succeeded(t, h.run(tt.def, input)), tt.want)
		})
	}
}

// TestContextObjectMemberOrder checks $$ against the member order AWS
// documents for the context object.
func TestContextObjectMemberOrder(t *testing.T) {
	t.Parallel()
	calls := newTokenCatcher()
	h := newHarness(t, calls)
	machine := h.create(`{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"c.$":"$$"},"Next":"T"},
		"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","Parameters":{"t.$":"$$.Task","s.$":"$$.State"},"End":true}}}`)
	arn := h.start(machine, `{"z":1,"a":2}`)
	call := calls.next(t)
	exact(t, "Task parameters", string(call.Parameters),
		fmt.Sprintf(`{"t":{"Token":%q},"s":{"EnteredTime":"2025-01-02T03:04:05.000Z","Name":"T","RetryCount":0}}`, call.TaskToken))
	if err := h.e.SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: call.TaskToken, Output: `{"y":1,"b":{"x":2,"a":3}}`}); err != nil {
		t.Fatal(err)
	}
	exact(t, "callback result", succeeded(t, h.wait(arn)), `{"y":1,"b":{"x":2,"a":3}}`)
	var pass string
	for _, ev := range h.events(arn) {
		if d, ok := ev.Details.(*StateExitedEventDetails); ok && d.Name == "A" {
			pass = d.Output
		}
	}
	name := arn[strings.LastIndex(arn, ":")+1:]
	exact(t, "$$", pass, fmt.Sprintf(`{"c":{"Execution":{"Id":%q,"Input":{"z":1,"a":2},"Name":%q,"RoleArn":"arn:aws:iam::123456789012:role/sfn","StartTime":"2025-01-02T03:04:05.000Z","RedriveCount":0},`+
		`"State":{"EnteredTime":"2025-01-02T03:04:05.000Z","Name":"A"},"StateMachine":{"Id":%q,"Name":%q}}}`,
		arn, name, machine, machine[strings.LastIndex(machine, ":")+1:]))
}

// TestHistoryKeepsMemberOrder checks the input and output text of every
// event that carries one.
func TestHistoryKeepsMemberOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t, funcIntegration(func(_ contextCtx, call taskCall) (rawMsg, error) {
		return rawMsg(`{"StatusCode":200,"Payload":{"zz":1,"aa":[{"y":1,"b":2}]}}`), nil
	}))
	x := h.run(`{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
		"Parameters":{"FunctionName":"f","Payload":{"z.$":"$.z","a.$":"$.a"}},
		"ResultSelector":{"p.$":"$.Payload","code.$":"$.StatusCode"},"ResultPath":"$.res","End":true}}}`, `{"z":1,"a":{"y":2,"b":3}}`)
	const output = `{"z":1,"a":{"y":2,"b":3},"res":{"p":{"zz":1,"aa":[{"y":1,"b":2}]},"code":200}}`
	exact(t, "execution output", succeeded(t, x), output)
	want := map[string]string{
		"ExecutionStarted":   `{"z":1,"a":{"y":2,"b":3}}`,
		"TaskStateEntered":   `{"z":1,"a":{"y":2,"b":3}}`,
		"TaskScheduled":      `{"FunctionName":"f","Payload":{"z":1,"a":{"y":2,"b":3}}}`,
		"TaskSucceeded":      `{"StatusCode":200,"Payload":{"zz":1,"aa":[{"y":1,"b":2}]}}`,
		"TaskStateExited":    output,
		"ExecutionSucceeded": output,
	}
	for _, ev := range h.events(x.ExecutionArn) {
		var got string
		switch d := ev.Details.(type) {
		case *ExecutionStartedEventDetails:
			got = d.Input
		case *StateEnteredEventDetails:
			got = d.Input
		case *TaskScheduledEventDetails:
			got = d.Parameters
		case *TaskOutputEventDetails:
			got = d.Output
		case *StateExitedEventDetails:
			got = d.Output
		case *ExecutionSucceededEventDetails:
			got = d.Output
		default:
			continue
		}
		exact(t, ev.Type, got, want[ev.Type])
		delete(want, ev.Type)
	}
	if len(want) > 0 {
		t.Errorf("events missing from the history: %v", want)
	}
}

// TestMemberOrderThroughJSONata checks the JSONata fields whose objects
// are templates or selected values.
func TestMemberOrderThroughJSONata(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	x := h.run(`{"QueryLanguage":"JSONata","StartAt":"A","States":{
		"A":{"Type":"Pass","Assign":{"kept":"{% $states.input.a %}"},"Output":{"zeta":1,"in":"{% $states.input %}","alpha":"{% $states.input.a.y %}"},"Next":"B"},
		"B":{"Type":"Pass","Output":{"v":"{% $kept %}","ctx":"{% $states.context.State %}"},"End":true}}}`, `{"z":1,"a":{"y":2,"b":3}}`)
	exact(t, "output", succeeded(t, x), `{"v":{"y":2,"b":3},"ctx":{"EnteredTime":"2025-01-02T03:04:05.000Z","Name":"B"}}`)
	for _, ev := range h.events(x.ExecutionArn) {
		if d, ok := ev.Details.(*StateExitedEventDetails); ok && d.Name == "A" {
			exact(t, "A output", d.Output, `{"zeta":1,"in":{"z":1,"a":{"y":2,"b":3}},"alpha":2}`)
		}
	}
}

// TestEqualityIgnoresMemberOrder checks the comparisons that can see
// objects: JSONPath filters, ArrayContains, ArrayUnique and JSONata's =.
func TestEqualityIgnoresMemberOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	x := h.run(`{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{
			"filtered.$":"$.list[?(@ == $.ref)]",
			"contains.$":"States.ArrayContains($.list, $.ref)",
			"unique.$":"States.ArrayUnique($.list)"},"Next":"J"},
		"J":{"Type":"Choice","QueryLanguage":"JSONata","Choices":[{"Condition":"{% $states.input.unique[0] = {'b': 2, 'a': 1} %}","Next":"Yes"}],"Default":"No"},
		"Yes":{"Type":"Pass","End":true},"No":{"Type":"Fail","Error":"NotEqual"}}}`,
		`{"ref":{"b":2,"a":1},"list":[{"a":1,"b":2},{"b":2,"a":1.0},{"a":1}]}`)
	exact(t, "output", succeeded(t, x), `{"filtered":[{"a":1,"b":2},{"b":2,"a":1.0}],"contains":true,"unique":[{"a":1,"b":2},{"a":1}]}`)
}
