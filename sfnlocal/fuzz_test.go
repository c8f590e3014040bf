package sfnlocal

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	zapobserver "go.uber.org/zap/zaptest/observer"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// fuzzSeeds are definitions and inputs that cover every state type, both
// query languages, Retry and Catch, callbacks and the history cap; the
// conformance fixtures add AWS-recorded machines.
var fuzzSeeds = [][2]string{
	{`{"StartAt":"P","States":{"P":{"Type":"Pass","Result":{"a":1},"ResultPath":"$.r","Next":"S"},"S":{"Type":"Succeed"}}}`, `{"x":1}`},
	{`{"StartAt":"P","States":{"P":{"Type":"Pass","Parameters":{"f.$":"States.Format('{} {}', $.a, $$.Execution.Name)","arr.$":"States.ArrayRange(1, 5, 1)","h.$":"States.Hash($.a, 'SHA-256')"},"End":true}}}`, `{"a":"x"}`},
	{`{"StartAt":"F","States":{"F":{"Type":"Fail","ErrorPath":"$.e","CausePath":"States.Format('c {}', $.e)"}}}`, `{"e":"Boom"}`},
	{`{"StartAt":"W","States":{"W":{"Type":"Wait","SecondsPath":"$.s","Next":"T"},"T":{"Type":"Wait","Timestamp":"2030-01-01T00:00:00Z","End":true}}}`, `{"s":30}`},
	{`{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"And":[{"Variable":"$.n","NumericGreaterThan":1},{"Not":{"Variable":"$.s","StringMatches":"a*"}}],"Next":"D"}],"Default":"E"},"D":{"Type":"Succeed"},"E":{"Type":"Fail","Error":"E"}}}`, `{"n":2,"s":"bc"}`},
	{`{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.x","IsPresent":true,"Next":"C"}],"Default":"D"},"D":{"Type":"Succeed"}}}`, `{"x":1}`},
	{`{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"f","Payload.$":"$"},"Retry":[{"ErrorEquals":["States.ALL"],"IntervalSeconds":1,"MaxAttempts":2,"BackoffRate":2,"JitterStrategy":"FULL"}],"Catch":[{"ErrorEquals":["States.ALL"],"ResultPath":"$.err","Next":"S"}],"TimeoutSeconds":5,"HeartbeatSeconds":2,"End":true},"S":{"Type":"Succeed"}}}`, `{"a":1}`},
	{`{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","Parameters":{"token.$":"$$.Task.Token"},"HeartbeatSeconds":60,"End":true}}}`, `{}`},
	{`{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:123456789012:function:f","ResultSelector":{"v.$":"$.a"},"End":true}}}`, `{"a":[1,2]}`},
	{`{"StartAt":"P","States":{"P":{"Type":"Parallel","Branches":[{"StartAt":"A","States":{"A":{"Type":"Pass","End":true}}},{"StartAt":"B","States":{"B":{"Type":"Fail","Error":"B"}}}],"Catch":[{"ErrorEquals":["B"],"Next":"S"}],"End":true},"S":{"Type":"Succeed"}}}`, `{}`},
	{`{"StartAt":"M","States":{"M":{"Type":"Map","ItemsPath":"$.items","MaxConcurrency":2,"ItemSelector":{"i.$":"$$.Map.Item.Index","v.$":"$$.Map.Item.Value"},"ItemProcessor":{"StartAt":"I","States":{"I":{"Type":"Pass","End":true}}},"End":true}}}`, `{"items":[1,2,3]}`},
	{`{"StartAt":"M","States":{"M":{"Type":"Map","ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"STANDARD"},"StartAt":"I","States":{"I":{"Type":"Fail","Error":"X"}}},"ItemBatcher":{"MaxItemsPerBatch":2},"ToleratedFailurePercentage":50,"End":true}}}`, `[1,2,3,4]`},
	{`{"StartAt":"P","States":{"P":{"Type":"Parallel","Branches":[{"StartAt":"L","States":{"L":{"Type":"Pass","Next":"L"}}}],"End":true}}}`, `{}`},
	{`{"QueryLanguage":"JSONata","StartAt":"P","States":{"P":{"Type":"Pass","Assign":{"n":"{% $states.input.n + 1 %}"},"Output":"{% {'n': $n, 'now': $now()} %}","Next":"C"},"C":{"Type":"Choice","Choices":[{"Condition":"{% $n < 3 %}","Next":"P"}],"Default":"S"},"S":{"Type":"Succeed","Output":"{% $states.input %}"}}}`, `{"n":0}`},
	{`{"QueryLanguage":"JSONata","StartAt":"M","States":{"M":{"Type":"Map","Items":"{% $states.input.xs %}","ItemSelector":"{% {'v': $states.context.Map.Item.Value} %}","ItemProcessor":{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Arguments":{"FunctionName":"f","Payload":"{% $states.input %}"},"Output":"{% $states.result %}","End":true}}},"End":true}}}`, `{"xs":[1,2]}`},
	{`{"QueryLanguage":"JSONata","StartAt":"W","States":{"W":{"Type":"Wait","Seconds":"{% $states.input.s %}","Next":"F"},"F":{"Type":"Fail","Error":"{% 'E' & $string($states.input.s) %}","Cause":"{% $states.context.Execution.Id %}"}}}`, `{"s":1}`},
	{`{"QueryLanguage":"JSONata","StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Arguments":"{% $error('boom') %}","Catch":[{"ErrorEquals":["States.QueryEvaluationError"],"Output":"{% $states.errorOutput %}","Next":"S"}],"End":true},"S":{"Type":"Succeed"}}}`, `{}`},
	{`{"QueryLanguage":"JSONata","StartAt":"P","States":{"P":{"Type":"Pass","Output":"{% ($f := function($n){ $f($n + 1) }; $f(0)) %}","End":true}}}`, `{}`},
	{`{"StartAt":"P","TimeoutSeconds":1,"States":{"P":{"Type":"Wait","Seconds":5,"End":true}}}`, `[]`},
	{`{"QueryLanguage":"JSONata","StartAt":"P","States":{"P":{"Type":"Pass","Output":"{% $map($states.input.xs, function($v, $i){ {'i': $i, 'u': $uppercase($string($v)), 'p': $pad($string($v), 5, '#'), 't': $type($v)} }) %}","End":true}}}`, `{"xs":[1,2.5,"a",null,true,{"k":[]}]}`},
	{`{"QueryLanguage":"JSONata","StartAt":"P","States":{"P":{"Type":"Pass","Output":"{% {'s': $sort($states.input.xs), 'j': $join(['a','b'], '-'), 'f': $formatNumber(1234.5, '#,##0.00'), 'm': $fromMillis(0), 'r': $reduce([1..5], function($a, $b){ $a + $b }), 'x': $match('abc', /b/), 'sp': $split('a,b', ','), 'k': $keys($states.input), 'z': $zip([1,2],[3,4]), 'd': $distinct([1,1,2]), 'sum': $sum([1,2]), 'avg': $average([1,2]), 'b64': $base64encode('hi'), 'fb': $formatBase(255, 16), 'fi': $formatInteger(12, 'w'), 'pi': $parseInteger('12', '#0'), 'pw': $power(2, 10), 'sq': $sqrt(4), 'now': $now(), 'rep': $replace('abc', 'b', 'x')} %}","End":true}}}`, `{"xs":[3,1,2]}`},
	{`{"QueryLanguage":"JSONata","StartAt":"P","States":{"P":{"Type":"Pass","Output":"{% {'p': $partition([1,2,3,4], 2), 'r': $range(0, 10, 2), 'h': $hash('x', 'SHA-256'), 'n': $random() < 1, 'u': $length($uuid()), 'j': $parse('{\"a\":[1,2]}'), 'm': $merge([{'a':1},{'b':2}]), 'e': $each({'a':1}, function($v,$k){$k}), 's': $sift({'a':1,'b':2}, function($v){$v>1}), 'l': $lookup({'a':1}, 'a'), 'c': $contains('abc','b'), 'ts': $toMillis('2020-01-01T00:00:00Z'), 'q': $states.input.xs[$ > 1], 'g': $states.input.xs^(>$)} %}","End":true}}}`, `{"xs":[3,1,2]}`},
	{`{"StartAt":"P","States":{"P":{"Type":"Pass","Parameters":{"m.$":"States.JsonMerge($.a, $.b, false)","j.$":"States.StringToJson($.s)","t.$":"States.JsonToString($)","pa.$":"States.ArrayPartition($.xs, 2)","c.$":"States.ArrayContains($.xs, 2)","g.$":"States.ArrayGetItem($.xs, 1)","l.$":"States.ArrayLength($.xs)","u.$":"States.ArrayUnique($.xs)","b.$":"States.Base64Decode(States.Base64Encode($.s))","r.$":"States.MathRandom(1, 9)","add.$":"States.MathAdd($.n, -1)","sp.$":"States.StringSplit('a,b,c', ',')","id.$":"States.UUID()","f.$":"$.xs[?(@ > 1)]","d.$":"$..k","sl.$":"$.xs[1:3]","last.$":"$.xs[-1:]"},"ResultPath":"$.out","OutputPath":"$.out","End":true}}}`, `{"a":{"k":1},"b":{"k":2},"s":"{\"z\":1}","xs":[1,2,2,3],"n":5}`},
	{`{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":"$.t","TimestampLessThan":"2030-01-01T00:00:00Z","Next":"W"},{"Variable":"$.s","StringMatches":"*x\\*","Next":"F"},{"Or":[{"Variable":"$.n","IsNumeric":true},{"Variable":"$.n","IsNull":true}],"Next":"F"}],"Default":"F"},"W":{"Type":"Wait","TimestampPath":"$.t","Next":"F"},"F":{"Type":"Fail","Error":"E","Cause":"C"}}}`, `{"t":"2025-01-02T03:04:06Z","s":"ax*","n":null}`},
	{`{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"x.$":"$.nope"},"Retry":[{"ErrorEquals":["States.TaskFailed"],"IntervalSeconds":0,"MaxAttempts":99999999,"BackoffRate":1,"MaxDelaySeconds":1}],"End":true}}}`, `{}`},
	{`{"StartAt":"M","States":{"M":{"Type":"Map","MaxConcurrencyPath":"$.c","ItemsPath":"$.xs","ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"EXPRESS"},"StartAt":"I","States":{"I":{"Type":"Pass","End":true}}},"ItemBatcher":{"MaxItemsPerBatchPath":"$.b","BatchInput":{"k.$":"$.k"}},"ToleratedFailureCountPath":"$.f","ResultSelector":{"n.$":"States.ArrayLength($)"},"End":true}}}`, `{"c":2,"b":2,"f":1,"k":"v","xs":[1,2,3,4,5]}`},
	{`{"StartAt":"P","States":{"P":{"Type":"Parallel","Branches":[{"StartAt":"M","States":{"M":{"Type":"Map","ItemProcessor":{"StartAt":"L","States":{"L":{"Type":"Pass","Next":"L"}}},"End":true}}},{"StartAt":"T","States":{"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","Parameters":{"t.$":"$$.Task.Token"},"End":true}}}],"End":true}}}`, `[1,2,3]`},
	// Inputs that once crashed the process or grew without bound: a loop
	// doubling its data (before the payload quota), an evaluator panic (the
	// JSONata $power of NaN, before guard) and a Wait too long for a
	// Duration (it wrapped round to no wait).
	{`{"StartAt":"P","States":{"P":{"Type":"Pass","Parameters":{"a.$":"$","b.$":"$"},"Next":"C"},"C":{"Type":"Choice","Choices":[{"Variable":"$.a","IsPresent":true,"Next":"P"}],"Default":"D"},"D":{"Type":"Succeed"}}}`, `{"a":1}`},
	{`{"QueryLanguage":"JSONata","StartAt":"P","States":{"P":{"Type":"Pass","Output":"{% $power(2, 1 % 0) %}","End":true}}}`, `{}`},
	{`{"StartAt":"W","States":{"W":{"Type":"Wait","SecondsPath":"$.s","End":true}}}`, `{"s":9223372037}`},
}

// fuzzEcho is the fuzz's integration: it answers every Task with its
// parameters, and a callback Task by sending them back with its token.
type fuzzEcho struct{ e *Engine }

func (*fuzzEcho) Supports(string) bool { return true }

func (f *fuzzEcho) Invoke(ctx context.Context, call task.Call) (json.RawMessage, error) {
	if call.TaskToken != "" {
		_ = f.e.SendTaskSuccess(ctx, SendTaskSuccessInput{TaskToken: call.TaskToken, Output: string(call.Parameters)})
		return json.RawMessage(`{}`), nil
	}
	return json.RawMessage(call.Parameters), nil
}

// FuzzExecution runs any definition on any input, moves the clock, stops
// the execution and reads its history: whatever the input, the engine
// must not panic, every call must return, the history must be well formed
// and within the cap, and Close must leave no goroutine running.
func FuzzExecution(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s[0], s[1])
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "conformance", "*.json"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var fx struct {
			Definition json.RawMessage `json:"definition"`
			Input      json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(b, &fx); err != nil {
			f.Fatalf("%s: %v", file, err)
		}
		f.Add(string(fx.Definition), string(fx.Input))
	}
	f.Fuzz(func(t *testing.T, definition, input string) {
		fuzzExecution(t, definition, input)
	})
}

func fuzzExecution(t *testing.T, definition, input string) {
	clock := NewFakeClock(epoch)
	echo := &fuzzEcho{}
	core, logs := zapobserver.New(zap.ErrorLevel)
	e := New(Options{Clock: clock, Integrations: []task.Integration{echo}, Logger: zap.New(core)})
	echo.e = e
	defer func() {
		closeWithin(t, e, 20*time.Second)
		wantNoPanics(t, logs)
	}()
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	sm, err := e.CreateStateMachine(c, CreateStateMachineInput{Name: "fuzz", Definition: definition, RoleArn: "arn:aws:iam::123456789012:role/sfn"})
	if err != nil {
		wantAPIError(t, "CreateStateMachine", err)
		return
	}
	out, err := e.StartExecution(c, StartExecutionInput{StateMachineArn: sm.StateMachineArn, Input: input})
	if err != nil {
		wantAPIError(t, "StartExecution", err)
		return
	}
	// Between moves the engine settles, so a loop runs into the cap and a
	// Wait is reached before the clock passes it; an evaluation that never
	// settles is left for StopExecution.
	settled := settle(e, time.Second)
	for _, d := range []time.Duration{time.Second, time.Minute, time.Hour, 24 * time.Hour} {
		clock.Advance(d)
		settled = settled && settle(e, time.Second)
	}
	if _, err := e.StopExecution(c, StopExecutionInput{ExecutionArn: out.ExecutionArn, Error: "Fuzz", Cause: "stopped"}); err != nil {
		t.Fatalf("StopExecution: %v", err)
	}
	x, err := e.WaitExecution(c, out.ExecutionArn)
	if err != nil {
		t.Fatalf("WaitExecution: %v", err)
	}
	if x.Status == StatusRunning {
		t.Fatalf("execution still RUNNING after StopExecution")
	}
	checkFuzzHistory(t, e, c, out.ExecutionArn)
}

// settle waits up to d until none of e's goroutines runs: every
// execution has ended or waits on the clock or a callback. It reports
// whether that happened.
func settle(e *Engine, d time.Duration) bool {
	done := make(chan struct{})
	go func() { waitQuiet(e); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// wantNoPanics fails the test if an evaluator panicked (the engine turns
// that into a failed state, see guard). Panics of the JSONata evaluator,
// which another package owns, only fail the test when SFNLOCAL_FUZZ_STRICT
// is set, so the fuzzer can go on looking for the engine's own.
func wantNoPanics(t *testing.T, logs *zapobserver.ObservedLogs) {
	t.Helper()
	for _, entry := range logs.FilterMessage("evaluation panicked").All() {
		stack, _ := entry.ContextMap()["stack"].(string)
		if strings.Contains(stack, "/jsonata/") && os.Getenv("SFNLOCAL_FUZZ_STRICT") == "" {
			continue
		}
		t.Fatalf("an evaluation panicked: %v\n%s", entry.ContextMap()["panic"], stack)
	}
}

// wantAPIError fails the test unless err is an *APIError with a code.
func wantAPIError(t *testing.T, op string, err error) {
	t.Helper()
	if ErrorCode(err) == "" {
		t.Fatalf("%s: %v is not an APIError", op, err)
	}
}

// checkFuzzHistory reads the whole history, in pages, and checks that it
// starts with ExecutionStarted, numbers its events 1, 2, … with earlier
// previous events, stays within the cap and ends with one end event.
func checkFuzzHistory(t *testing.T, e *Engine, c context.Context, arn string) {
	t.Helper()
	var events []HistoryEvent
	next := ""
	for {
		page, err := e.GetExecutionHistory(c, GetExecutionHistoryInput{ExecutionArn: arn, MaxResults: 1000, NextToken: next})
		if err != nil {
			t.Fatalf("GetExecutionHistory: %v", err)
		}
		events = append(events, page.Events...)
		if next = page.NextToken; next == "" {
			break
		}
	}
	if len(events) == 0 || len(events) > maxHistoryEvents {
		t.Fatalf("history has %d events", len(events))
	}
	if events[0].Type != EventExecutionStarted {
		t.Errorf("first event %s", events[0].Type)
	}
	for i, ev := range events {
		if ev.ID != int64(i+1) || ev.PreviousEventID < 0 || ev.PreviousEventID >= ev.ID {
			t.Fatalf("event %d: id %d, previous %d", i+1, ev.ID, ev.PreviousEventID)
		}
		end := ev.Type == EventExecutionSucceeded || ev.Type == EventExecutionFailed || ev.Type == EventExecutionAborted || ev.Type == EventExecutionTimedOut
		if end != (i == len(events)-1) {
			t.Fatalf("event %d of %d is %s", i+1, len(events), ev.Type)
		}
	}
}

// The seeds must reach the engine's execution paths, not stop at
// validation.
func TestFuzzSeedsAreValid(t *testing.T) {
	t.Parallel()
	for i, s := range fuzzSeeds {
		h := newRunawayHarness(t)
		if _, err := h.e.CreateStateMachine(ctx(t), CreateStateMachineInput{Name: "seed", Definition: s[0], RoleArn: "arn:aws:iam::123456789012:role/sfn"}); err != nil {
			t.Errorf("seed %d: %v", i, err)
		}
	}
}

// fieldTemplates place one expression in the fields that evaluate one, so
// the fuzzer spends its time on evaluation rather than on definitions the
// validator turns away.
var fieldTemplates = []string{
	`{"QueryLanguage":"JSONata","StartAt":"P","States":{"P":{"Type":"Pass","Output":"{% %s %}","Assign":{"v":"{% %s %}"},"End":true}}}`,
	`{"QueryLanguage":"JSONata","StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Condition":"{% %s %}","Next":"D"}],"Default":"D"},"D":{"Type":"Succeed"}}}`,
	`{"QueryLanguage":"JSONata","StartAt":"M","States":{"M":{"Type":"Map","Items":"{% %s %}","ItemProcessor":{"StartAt":"W","States":{"W":{"Type":"Wait","Seconds":"{% %s %}","End":true}}},"End":true}}}`,
	`{"QueryLanguage":"JSONata","StartAt":"F","States":{"F":{"Type":"Fail","Error":"{% %s %}","Cause":"{% %s %}"}}}`,
	`{"StartAt":"P","States":{"P":{"Type":"Pass","Parameters":{"v.$":%q},"ResultPath":"$.r","End":true}}}`,
	`{"StartAt":"C","States":{"C":{"Type":"Choice","Choices":[{"Variable":%q,"StringEquals":"x","Next":"D"}],"Default":"D"},"D":{"Type":"Succeed"}}}`,
	`{"StartAt":"M","States":{"M":{"Type":"Map","ItemsPath":%q,"ItemSelector":{"v.$":"$$.Map.Item.Value"},"ItemProcessor":{"StartAt":"I","States":{"I":{"Type":"Pass","End":true}}},"End":true}}}`,
	`{"StartAt":"W","States":{"W":{"Type":"Wait","SecondsPath":%q,"End":true}}}`,
	`{"StartAt":"P","States":{"P":{"Type":"Pass","ResultPath":%q,"End":true}}}`,
}

// FuzzFields runs one expression, in JSONata or JSONPath and intrinsic
// functions, through every field of fieldTemplates, with the same checks as
// FuzzExecution.
func FuzzFields(f *testing.F) {
	for _, s := range [][2]string{
		{`$states.input.xs[$ > 1]`, `{"xs":[1,2,3]}`},
		{`$map([1..3], function($v){ $v * 2 })`, `{}`},
		{`$reduce($states.input.xs, function($a, $b){ $a & $b }, '')`, `{"xs":["a","b"]}`},
		{`$power(2, $states.input.n)`, `{"n":10}`},
		{`$.xs[?(@ > 1)]`, `{"xs":[1,2,3]}`},
		{`States.Format('{} {}', $.a, States.ArrayLength($.xs))`, `{"a":"x","xs":[1]}`},
		{`States.JsonMerge($.o, States.StringToJson($.s), false)`, `{"o":{"a":1},"s":"{\"b\":2}"}`},
		{`$$.Execution.Input.a`, `{"a":"b"}`},
		{`$.xs[-1:]`, `{"xs":[1,2,3]}`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, expr, input string) {
		if strings.ContainsAny(expr, "\x00") {
			return
		}
		jsonata, err := json.Marshal(expr)
		if err != nil {
			return
		}
		inner := string(jsonata[1 : len(jsonata)-1]) // the expression as a JSON string's body
		for _, tmpl := range fieldTemplates {
			var def string
			if strings.Contains(tmpl, "%q") {
				def = fmt.Sprintf(tmpl, expr)
			} else {
				def = strings.ReplaceAll(tmpl, "%s", inner)
			}
			fuzzExecution(t, def, input)
		}
	})
}
