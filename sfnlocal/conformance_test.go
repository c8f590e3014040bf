package sfnlocal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/sfnlocal/integrations/lambda"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// A conformance fixture (testdata/conformance/*.json) is one execution whose
// history AWS recorded: the definition and input, how the test answers its
// Task states and callbacks, and the history AWS gave, event by event.
type conformanceFixture struct {
	// Source names the AWS-recorded snapshot the fixture reflects.
	Source struct {
		Repo string `json:"repo"`
		Path string `json:"path"`
		Test string `json:"test"`
		Note string `json:"note"`
	} `json:"source"`
	Definition json.RawMessage `json:"definition"`
	Input      json.RawMessage `json:"input"`
	// Tasks answer the execution's Task states, in call order.
	Tasks []fixtureTask `json:"tasks"`
	// Steps drive callbacks and the clock, in order.
	Steps  []fixtureStep `json:"steps"`
	Status string        `json:"status"`
	// HistoryPrefix: AWS's recording covers only the first events; the
	// last event must then be FinalType.
	HistoryPrefix bool   `json:"historyPrefix"`
	FinalType     string `json:"finalType"`
	// History lists each event's id, previousEventId and type, plus the
	// details members that matter (name, input, output, error, cause,
	// index, length, resource, …). error and cause are always compared:
	// leaving them out means AWS records none.
	History []map[string]json.RawMessage `json:"history"`
	// Recording is the history as the snapshot holds it, copied as is
	// (LocalStack's form: details under "<type>EventDetails", JSON texts
	// as values), instead of History; see fromRecording.
	Recording []map[string]json.RawMessage `json:"recording"`
	// Executions are several recorded executions of one definition (a
	// snapshot's exec_hist_resp_0, _1, …): each has its own name, input,
	// status and history, and shares the fixture's source and definition.
	Executions []conformanceFixture `json:"executions"`
	// Name names one of Executions.
	Name string `json:"name"`
	// KnownDifference says why the engine does not yet match this
	// recording: the fixture is still run, skipped while it differs, and
	// fails once it matches, so that the note is removed.
	KnownDifference string `json:"knownDifference"`
}

// fixtureTask is one answer of a Task state: a result (for a callback,
// what TaskSubmitted records), an error, or no answer until the attempt
// ends. LargeResult, instead of Result, answers a JSON string of that many
// "a"s: a recorded function's oversized answer, kept out of the file.
// FunctionError is the error document a Lambda function returns: the
// call goes through the Lambda integration (package lambda), which turns
// it into the task failure as Step Functions does.
type fixtureTask struct {
	Result        json.RawMessage `json:"result"`
	LargeResult   int             `json:"largeResult"`
	Error         string          `json:"error"`
	Cause         string          `json:"cause"`
	FunctionError string          `json:"functionError"`
	Hang          bool            `json:"hang"`
}

// fixtureStep first waits until the history holds AfterEvents events,
// then does one thing: advance the clock (once Timers timers are pending)
// or answer the open task token.
type fixtureStep struct {
	AfterEvents       int             `json:"afterEvents"`
	Timers            int             `json:"timers"`
	Advance           float64         `json:"advance"`
	SendTaskSuccess   json.RawMessage `json:"sendTaskSuccess"`
	SendTaskFailure   *fixtureFailure `json:"sendTaskFailure"`
	SendTaskHeartbeat bool            `json:"sendTaskHeartbeat"`
}

type fixtureFailure struct {
	Error string `json:"error"`
	Cause string `json:"cause"`
}

// fixtureIntegration answers Task states from a fixture's Tasks and hands
// callback tokens to the steps.
type fixtureIntegration struct {
	mu     sync.Mutex
	tasks  []fixtureTask
	tokens chan string
}

func (f *fixtureIntegration) Supports(string) bool { return true }

func (f *fixtureIntegration) Invoke(ctx context.Context, call task.Call) (json.RawMessage, error) {
	f.mu.Lock()
	if len(f.tasks) == 0 {
		f.mu.Unlock()
		return nil, &task.Failure{Name: "Fixture.NoAnswer", Cause: "the fixture has no answer left for " + call.StateName}
	}
	next := f.tasks[0]
	f.tasks = f.tasks[1:]
	f.mu.Unlock()
	if call.TaskToken != "" {
		f.tokens <- call.TaskToken
	}
	switch {
	case next.Hang:
		<-ctx.Done()
		return nil, ctx.Err()
	case next.FunctionError != "":
		return failingFunction(ctx, call, next.FunctionError)
	case next.Error != "" || next.Cause != "":
		return nil, &task.Failure{Name: next.Error, Cause: next.Cause}
	case next.LargeResult > 0:
		return json.RawMessage(`"` + strings.Repeat("a", next.LargeResult) + `"`), nil
	case next.Result == nil:
		return json.RawMessage(`{}`), nil
	}
	return next.Result, nil
}

// failingFunction runs a Lambda Task state through the Lambda
// integration, its function failing with the error document doc.
func failingFunction(ctx context.Context, call task.Call, doc string) (json.RawMessage, error) {
	name := call.Resource
	if !strings.HasPrefix(name, "arn:aws:lambda:") {
		var p struct{ FunctionName string }
		if err := json.Unmarshal(call.Parameters, &p); err != nil {
			return nil, err
		}
		name = p.FunctionName
	}
	fns := lambda.New(nil)
	fns.Register(name, func(context.Context, []byte) ([]byte, error) {
		return nil, &lambda.FunctionError{Document: []byte(doc)}
	})
	return fns.Invoke(ctx, call)
}

func TestConformance(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "conformance", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			t.Parallel()
			f := readFixture(t, file)
			if f.Executions == nil {
				runFixture(t, f)
				return
			}
			for _, x := range f.Executions {
				t.Run(x.Name, func(t *testing.T) {
					t.Parallel()
					runFixture(t, x)
				})
			}
		})
	}
}

// decodeFixture reads file into v, refusing fields v does not have.
func decodeFixture(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// readFixture reads and checks one fixture file; the executions of a file
// with several get its definition and their histories.
func readFixture(t *testing.T, file string) conformanceFixture {
	t.Helper()
	var f conformanceFixture
	decodeFixture(t, file, &f)
	if f.Source.Repo == "" || f.Source.Path == "" || f.Source.Test == "" {
		t.Fatalf("%s: the fixture does not name the recording it reflects", file)
	}
	if f.Executions == nil {
		resolveHistory(t, file, &f)
		return f
	}
	if f.History != nil || f.Recording != nil || f.Status != "" {
		t.Fatalf("%s: a fixture with executions has no history or status of its own", file)
	}
	names := map[string]bool{}
	for i := range f.Executions {
		x := &f.Executions[i]
		if x.Name == "" || names[x.Name] {
			t.Fatalf("%s: execution %d has no name or a repeated one (%q)", file, i, x.Name)
		}
		names[x.Name] = true
		if x.Definition == nil {
			x.Definition = f.Definition
		}
		x.Source = f.Source
		resolveHistory(t, file, x)
	}
	return f
}

// resolveHistory turns a fixture's Recording into its History.
func resolveHistory(t *testing.T, file string, f *conformanceFixture) {
	t.Helper()
	if f.Status == "" || (f.History == nil && f.Recording == nil) {
		t.Fatalf("%s %s: a fixture needs a status and a history or a recording", file, f.Name)
	}
	if f.Recording != nil {
		if f.History != nil {
			t.Fatalf("%s %s: a fixture has a history or a recording, not both", file, f.Name)
		}
		f.History = fromRecording(t, f.Recording)
	}
}

// fromRecording turns events copied from a LocalStack snapshot into
// History entries: the details move up beside id and type. What the
// snapshot masked is not compared: a timestamp, the role, a value
// LocalStack replaced with a "<placeholder>", and an id written [0] (the
// ids of Parallel branch events, whose order LocalStack does not keep: such
// events are compared as a set, see compareHistory).
func fromRecording(t *testing.T, events []map[string]json.RawMessage) []map[string]json.RawMessage {
	t.Helper()
	out := make([]map[string]json.RawMessage, len(events))
	for i, ev := range events {
		e := map[string]json.RawMessage{}
		for k, v := range ev {
			switch {
			case k == "timestamp":
			case strings.HasSuffix(k, "EventDetails"):
				var details map[string]json.RawMessage
				if err := json.Unmarshal(v, &details); err != nil {
					t.Fatalf("recording event %d: %s: %v", i+1, k, err)
				}
				for dk, dv := range details {
					if dk == "roleArn" || placeholder.Match(dv) {
						continue
					}
					e[dk] = dv
				}
			default:
				e[k] = v
			}
		}
		if id := e["id"]; len(id) > 0 && id[0] == '[' {
			e["id"], e["previousEventId"] = json.RawMessage("null"), json.RawMessage("null")
		}
		out[i] = e
	}
	return out
}

// placeholder matches a JSON value holding one of LocalStack's
// replacements of a recorded value ("<region>", "<uuid:1>").
var placeholder = regexp.MustCompile(`<[A-Za-z_:0-9.\-]+>`)

func runFixture(t *testing.T, f conformanceFixture) {
	integ := &fixtureIntegration{tasks: f.Tasks, tokens: make(chan string, len(f.Tasks)+1)}
	h := newHarness(t, integ)
	input := compactJSON(t, f.Input)
	arn := h.start(h.create(string(compactJSON(t, f.Definition))), string(input))

	var token string
	nextToken := func() string {
		if token == "" {
			select {
			case token = <-integ.tokens:
			case <-ctx(t).Done():
				t.Fatal("no task token was issued")
			}
		}
		return token
	}
	for i, s := range f.Steps {
		h.awaitEvents(arn, s.AfterEvents)
		var err error
		switch {
		case s.Advance > 0:
			h.advance(s.Timers, time.Duration(s.Advance*float64(time.Second)))
		case s.SendTaskSuccess != nil:
			err = h.e.SendTaskSuccess(ctx(t), SendTaskSuccessInput{TaskToken: nextToken(), Output: string(s.SendTaskSuccess)})
			token = ""
		case s.SendTaskFailure != nil:
			err = h.e.SendTaskFailure(ctx(t), SendTaskFailureInput{TaskToken: nextToken(), Error: s.SendTaskFailure.Error, Cause: s.SendTaskFailure.Cause})
			token = ""
		case s.SendTaskHeartbeat:
			err = h.e.SendTaskHeartbeat(ctx(t), SendTaskHeartbeatInput{TaskToken: nextToken()})
		default:
			t.Fatalf("step %d does nothing", i)
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}

	x := h.wait(arn)
	diffs := &collector{}
	if x.Status != f.Status {
		diffs.Errorf("status = %s (%s: %s), want %s", x.Status, x.Error, x.Cause, f.Status)
	}
	compareHistory(diffs, h.events(arn), f)
	switch {
	case f.KnownDifference == "":
		for _, d := range diffs.msgs {
			t.Error(d)
		}
	case len(diffs.msgs) == 0:
		t.Errorf("the engine now matches the recording: remove knownDifference (%s)", f.KnownDifference)
	default:
		t.Skipf("known difference: %s\n%s", f.KnownDifference, strings.Join(diffs.msgs, "\n"))
	}
}

// collector gathers a fixture's differences from its recording.
type collector struct{ msgs []string }

func (c *collector) Helper() {}
func (c *collector) Errorf(format string, args ...any) {
	c.msgs = append(c.msgs, fmt.Sprintf(format, args...))
}
func (c *collector) Fatalf(format string, args ...any) { c.Errorf(format, args...) }

// awaitEvents polls, up to the test deadline, until the history holds n
// events: a step that moves the clock must not overtake the events the
// engine records from an integration's goroutine.
func (h *harness) awaitEvents(arn string, n int) {
	h.t.Helper()
	c := ctx(h.t)
	for {
		out, err := h.e.GetExecutionHistory(c, GetExecutionHistoryInput{ExecutionArn: arn, MaxResults: 1000})
		if err != nil {
			h.t.Fatalf("GetExecutionHistory: %v", err)
		}
		if len(out.Events) >= n {
			return
		}
		select {
		case <-c.Done():
			h.t.Fatalf("history never reached %d events: %v", n, eventTypes(out.Events))
		case <-time.After(time.Millisecond):
		}
	}
}

func compareHistory(t reporter, got []HistoryEvent, f conformanceFixture) {
	t.Helper()
	want := f.History
	if f.HistoryPrefix {
		if len(got) <= len(want) {
			t.Fatalf("history has %d events, want more than the %d recorded: %v", len(got), len(want), eventTypes(got))
			return
		}
		if last := got[len(got)-1].Type; last != f.FinalType {
			t.Errorf("last event = %s, want %s", last, f.FinalType)
		}
		got = got[:len(want)]
	} else if len(got) != len(want) {
		t.Errorf("history has %d events, want %d\ngot  %v", len(got), len(want), eventTypes(got))
	}
	masked := map[int]bool{}
	for i := 0; i < len(want) && i < len(got); i++ {
		if string(want[i]["id"]) == "null" {
			masked[i] = true
			continue
		}
		compareEventTo(t, i, got[i], want[i])
	}
	compareMasked(t, got, want, masked)
}

// compareMasked compares the events whose ids the recording masked as a
// set: each recorded one must match one recorded event at a masked
// position, whatever the order.
func compareMasked(t reporter, got []HistoryEvent, want []map[string]json.RawMessage, masked map[int]bool) {
	t.Helper()
	var pool []HistoryEvent
	for i := range masked {
		pool = append(pool, got[i])
	}
	for i := range want {
		if !masked[i] {
			continue
		}
		found := -1
		for j, ev := range pool {
			w := maps.Clone(want[i])
			w["id"], w["previousEventId"] = json.RawMessage(strconv.FormatInt(ev.ID, 10)), json.RawMessage(strconv.FormatInt(ev.PreviousEventID, 10))
			if eventMatches(ev, w) {
				found = j
				break
			}
		}
		if found < 0 {
			t.Errorf("no event matches recorded event %d (%s, id masked): %s", i+1, want[i]["type"], want[i])
			continue
		}
		pool = append(pool[:found], pool[found+1:]...)
	}
}

// eventMatches reports whether compareEvent finds no difference.
func eventMatches(ev HistoryEvent, want map[string]json.RawMessage) bool {
	r := &recorder{}
	compareEventTo(r, 0, ev, want)
	return !r.failed
}

// recorder collects compareEventTo's complaints without failing a test.
type recorder struct{ failed bool }

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func eventTypes(events []HistoryEvent) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = ev.Type
	}
	return out
}

// jsonTextFields hold a JSON text in the details; the fixture writes the
// value itself.
var jsonTextFields = map[string]bool{"input": true, "output": true, "parameters": true}

// reporter is what compareEventTo reports to: a *testing.T or a recorder.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

func compareEventTo(t reporter, i int, ev HistoryEvent, want map[string]json.RawMessage) {
	t.Helper()
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatalf("event %d: %v", i, err)
		return
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("event %d: %v", i, err)
		return
	}
	for _, k := range []string{"id", "previousEventId", "type"} {
		if !jsonSame(got[k], want[k]) {
			t.Errorf("event %d (%s): %s = %s, want %s", i+1, ev.Type, k, got[k], want[k])
		}
	}
	var details map[string]json.RawMessage
	if d, ok := got[DetailsField(ev.Type)]; ok {
		if err := json.Unmarshal(d, &details); err != nil {
			t.Fatalf("event %d details: %v", i+1, err)
			return
		}
	}
	for k, w := range want {
		switch k {
		case "id", "previousEventId", "type":
			continue
		}
		g, ok := details[k]
		if !ok {
			t.Errorf("event %d (%s): no %s, want %s", i+1, ev.Type, k, w)
			continue
		}
		if jsonTextFields[k] {
			var text string
			if err := json.Unmarshal(g, &text); err != nil {
				t.Errorf("event %d (%s): %s is not a JSON text: %s", i+1, ev.Type, k, g)
				continue
			}
			g = json.RawMessage(text)
		}
		if !jsonSame(g, w) {
			t.Errorf("event %d (%s): %s = %s, want %s", i+1, ev.Type, k, g, w)
		}
	}
	for _, k := range []string{"error", "cause"} {
		if _, listed := want[k]; !listed {
			if g, ok := details[k]; ok {
				t.Errorf("event %d (%s): %s = %s, want none", i+1, ev.Type, k, g)
			}
		}
	}
}

// jsonSame compares two JSON texts as values; member order is not
// compared.
func jsonSame(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func compactJSON(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	if raw == nil {
		return []byte("{}")
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestMapFailureAbortChain checks the chain AWS recorded when a concurrent
// Map iteration fails while another waits (localstack/localstack
// tests/aws/services/stepfunctions/v2/timeouts/test_timeouts.snapshot.json,
// TestTimeouts::test_service_lambda_map_timeout): iterations launched at
// the start follow MapStateStarted; MapIterationFailed, every abort event
// and MapStateFailed follow the failing iteration's last state event. The
// relative order of the two iterations' events is not fixed, so the test
// checks the chain, not the ids.
func TestMapFailureAbortChain(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	arn := h.start(h.create(`{"StartAt":"M","States":{"M":{"Type":"Map","MaxConcurrency":2,"End":true,
		"ItemProcessor":{"StartAt":"W","States":{"W":{"Type":"Wait","SecondsPath":"$","Next":"F"},"F":{"Type":"Fail","Error":"Boom"}}}}}}`), `[1,100]`)
	h.advance(3, time.Second) // the execution limit and both Waits
	if x := h.wait(arn); x.Status != StatusFailed || x.Error != "Boom" {
		t.Fatalf("got %s %s, want FAILED Boom", x.Status, x.Error)
	}
	events := h.events(arn)
	byType := map[string][]HistoryEvent{}
	for _, ev := range events {
		byType[ev.Type] = append(byType[ev.Type], ev)
	}
	one := func(typ string) HistoryEvent {
		t.Helper()
		if len(byType[typ]) != 1 {
			t.Fatalf("%d %s events in %v", len(byType[typ]), typ, eventTypes(events))
		}
		return byType[typ][0]
	}
	started, failing := one("MapStateStarted"), one("FailStateEntered")
	for _, ev := range byType["MapIterationStarted"] {
		if ev.PreviousEventID != started.ID {
			t.Errorf("MapIterationStarted %d follows %d, want MapStateStarted %d", ev.ID, ev.PreviousEventID, started.ID)
		}
	}
	for _, typ := range []string{"MapIterationFailed", "WaitStateAborted", "MapIterationAborted", "MapStateFailed"} {
		if ev := one(typ); ev.PreviousEventID != failing.ID {
			t.Errorf("%s follows %d, want the failing FailStateEntered %d", typ, ev.PreviousEventID, failing.ID)
		}
	}
	if idx := one("MapIterationAborted").Details.(*MapIterationEventDetails).Index; idx != 1 {
		t.Errorf("aborted iteration %d, want 1", idx)
	}
	failed := one("MapStateFailed")
	if last := events[len(events)-1]; last.Type != "ExecutionFailed" || last.PreviousEventID != failed.ID || events[len(events)-2].ID != failed.ID {
		t.Errorf("history ends %v, want MapStateFailed then ExecutionFailed following it", eventTypes(events[len(events)-3:]))
	}
	if n := len(byType["WaitStateExited"]); n != 1 {
		t.Errorf("%d WaitStateExited, want 1: the aborted iteration records nothing more", n)
	}
}
