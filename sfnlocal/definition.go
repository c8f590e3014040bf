package sfnlocal

import (
	"fmt"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// Query languages.
const (
	langJSONPath = "JSONPath"
	langJSONata  = "JSONata"
)

// definition is a parsed state machine, or a Parallel branch or Map
// processor inside one.
type definition struct {
	startAt        string
	states         map[string]*state
	timeoutSeconds int64
}

// optPath is a path field that may be absent, null or a path.
type optPath struct {
	set, null bool
	path      string
}

// field is an optional JSON-valued field.
type field struct {
	set   bool
	value any
}

type state struct {
	name, typ, lang string
	next            string
	end             bool

	inputPath, outputPath, resultPath  optPath
	parameters, resultSelector, result field
	arguments, output, assign          field

	// Task
	resource             string
	credentials          field
	timeoutSeconds       field
	heartbeatSeconds     field
	timeoutSecondsPath   string
	heartbeatSecondsPath string
	retry                []*retrier
	catch                []*catcher

	// Choice
	choices     []*choiceRule
	defaultNext string

	// Wait
	seconds, timestamp         field
	secondsPath, timestampPath string

	// Fail
	errorField, causeField field
	errorPath, causePath   string

	// Parallel
	branches []*definition

	// Map
	processor          *definition
	distributed        bool
	itemsPath          optPath
	items              field
	itemSelector       field
	maxConcurrency     field
	maxConcurrencyPath string
	toleratedPercent   field
	toleratedPctPath   string
	toleratedCount     field
	toleratedCountPath string
	batcher            *itemBatcher
	label              string
	reader             *itemReaderDef   // ItemReader (mapio.go)
	writer             *resultWriterDef // ResultWriter (mapio.go)
}

type itemBatcher struct {
	maxItems     field
	maxItemsPath string
	batchInput   field
}

type retrier struct {
	errorEquals []string
	interval    float64
	maxAttempts int64
	backoff     float64
	maxDelay    float64
	jitterFull  bool
}

type catcher struct {
	errorEquals []string
	next        string
	resultPath  optPath
	output      field
	assign      field
}

// parseDefinition parses a definition that validate.Check accepted.
func parseDefinition(text []byte) (*definition, error) {
	v, err := decodeJSON(text)
	if err != nil {
		return nil, err
	}
	m, ok := v.(*jsonvalue.Object)
	if !ok {
		return nil, fmt.Errorf("a definition must be a JSON object")
	}
	lang := langJSONPath
	if s := str(m, "QueryLanguage"); s != "" {
		lang = s
	}
	return parseMachine(m, lang, "")
}

// member is m's value for key, nil when absent.
func member(m *jsonvalue.Object, key string) any {
	v, _ := m.Get(key)
	return v
}

// str is m's string value for key, "" when absent or not a string.
func str(m *jsonvalue.Object, key string) string {
	s, _ := member(m, key).(string)
	return s
}

// obj is m's object value for key, nil when absent or not an object.
func obj(m *jsonvalue.Object, key string) *jsonvalue.Object {
	o, _ := member(m, key).(*jsonvalue.Object)
	return o
}

func parseMachine(m *jsonvalue.Object, lang, at string) (*definition, error) {
	d := &definition{states: map[string]*state{}}
	d.startAt = str(m, "StartAt")
	if n, ok := integer(member(m, "TimeoutSeconds")); ok {
		d.timeoutSeconds = n
	}
	states := obj(m, "States")
	for _, name := range states.Keys() {
		sm := obj(states, name)
		if sm == nil {
			return nil, fmt.Errorf("%s/States/%s is not an object", at, name)
		}
		st, err := parseState(name, sm, lang, at+"/States/"+name)
		if err != nil {
			return nil, err
		}
		d.states[name] = st
	}
	if _, ok := d.states[d.startAt]; !ok {
		return nil, fmt.Errorf("%s/StartAt: state %q does not exist", at, d.startAt)
	}
	return d, nil
}

func getField(m *jsonvalue.Object, key string) field {
	v, ok := m.Get(key)
	return field{set: ok, value: v}
}

func getPath(m *jsonvalue.Object, key string) optPath {
	v, ok := m.Get(key)
	if !ok {
		return optPath{}
	}
	if v == nil {
		return optPath{set: true, null: true}
	}
	s, _ := v.(string)
	return optPath{set: true, path: s}
}

func getStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func parseState(name string, m *jsonvalue.Object, lang, at string) (*state, error) {
	st := &state{name: name, lang: lang}
	st.typ = str(m, "Type")
	if s := str(m, "QueryLanguage"); s != "" {
		st.lang = s
	}
	st.next = str(m, "Next")
	st.end, _ = member(m, "End").(bool)
	st.inputPath = getPath(m, "InputPath")
	st.outputPath = getPath(m, "OutputPath")
	st.resultPath = getPath(m, "ResultPath")
	st.parameters = getField(m, "Parameters")
	st.resultSelector = getField(m, "ResultSelector")
	st.result = getField(m, "Result")
	st.arguments = getField(m, "Arguments")
	st.output = getField(m, "Output")
	st.assign = getField(m, "Assign")

	st.resource = str(m, "Resource")
	st.credentials = getField(m, "Credentials")
	st.timeoutSeconds = getField(m, "TimeoutSeconds")
	st.heartbeatSeconds = getField(m, "HeartbeatSeconds")
	st.timeoutSecondsPath = str(m, "TimeoutSecondsPath")
	st.heartbeatSecondsPath = str(m, "HeartbeatSecondsPath")
	for _, r := range asList(member(m, "Retry")) {
		st.retry = append(st.retry, parseRetrier(r))
	}
	for _, c := range asList(member(m, "Catch")) {
		st.catch = append(st.catch, parseCatcher(c))
	}

	for i, c := range asList(member(m, "Choices")) {
		rule, err := parseChoiceRule(c, fmt.Sprintf("%s/Choices[%d]", at, i))
		if err != nil {
			return nil, err
		}
		st.choices = append(st.choices, rule)
	}
	st.defaultNext = str(m, "Default")

	st.seconds = getField(m, "Seconds")
	st.timestamp = getField(m, "Timestamp")
	st.secondsPath = str(m, "SecondsPath")
	st.timestampPath = str(m, "TimestampPath")

	st.errorField = getField(m, "Error")
	st.causeField = getField(m, "Cause")
	st.errorPath = str(m, "ErrorPath")
	st.causePath = str(m, "CausePath")

	for i, b := range asList(member(m, "Branches")) {
		d, err := parseMachine(b, st.lang, fmt.Sprintf("%s/Branches[%d]", at, i))
		if err != nil {
			return nil, err
		}
		st.branches = append(st.branches, d)
	}

	if st.typ == "Map" {
		if err := parseMap(st, m, at); err != nil {
			return nil, err
		}
	}
	return st, nil
}

func parseMap(st *state, m *jsonvalue.Object, at string) error {
	proc := obj(m, "ItemProcessor")
	if proc == nil {
		proc = obj(m, "Iterator")
	}
	if proc == nil {
		return fmt.Errorf("%s: a Map state needs an ItemProcessor", at)
	}
	if cfg := obj(proc, "ProcessorConfig"); cfg != nil {
		st.distributed = str(cfg, "Mode") == "DISTRIBUTED"
	}
	d, err := parseMachine(proc, st.lang, at+"/ItemProcessor")
	if err != nil {
		return err
	}
	st.processor = d
	st.itemsPath = getPath(m, "ItemsPath")
	st.items = getField(m, "Items")
	st.itemSelector = getField(m, "ItemSelector")
	if !st.itemSelector.set && st.parameters.set {
		st.itemSelector, st.parameters = st.parameters, field{}
	}
	st.maxConcurrency = getField(m, "MaxConcurrency")
	st.maxConcurrencyPath = str(m, "MaxConcurrencyPath")
	st.toleratedPercent = getField(m, "ToleratedFailurePercentage")
	st.toleratedPctPath = str(m, "ToleratedFailurePercentagePath")
	st.toleratedCount = getField(m, "ToleratedFailureCount")
	st.toleratedCountPath = str(m, "ToleratedFailureCountPath")
	if b := obj(m, "ItemBatcher"); b != nil {
		st.batcher = &itemBatcher{maxItems: getField(b, "MaxItemsPerBatch"), batchInput: getField(b, "BatchInput")}
		st.batcher.maxItemsPath = str(b, "MaxItemsPerBatchPath")
	}
	st.label = str(m, "Label")
	parseMapIO(st, m)
	return nil
}

func asList(v any) []*jsonvalue.Object {
	list, _ := v.([]any)
	out := make([]*jsonvalue.Object, 0, len(list))
	for _, x := range list {
		if m, ok := x.(*jsonvalue.Object); ok {
			out = append(out, m)
		}
	}
	return out
}

func parseRetrier(m *jsonvalue.Object) *retrier {
	r := &retrier{errorEquals: getStrings(member(m, "ErrorEquals")), interval: 1, maxAttempts: 3, backoff: 2}
	if f, ok := jsonvalue.Float(member(m, "IntervalSeconds")); ok {
		r.interval = f
	}
	if n, ok := integer(member(m, "MaxAttempts")); ok {
		r.maxAttempts = n
	}
	if f, ok := jsonvalue.Float(member(m, "BackoffRate")); ok {
		r.backoff = f
	}
	if f, ok := jsonvalue.Float(member(m, "MaxDelaySeconds")); ok {
		r.maxDelay = f
	}
	r.jitterFull = str(m, "JitterStrategy") == "FULL"
	return r
}

func parseCatcher(m *jsonvalue.Object) *catcher {
	c := &catcher{errorEquals: getStrings(member(m, "ErrorEquals"))}
	c.next = str(m, "Next")
	c.resultPath = getPath(m, "ResultPath")
	c.output = getField(m, "Output")
	c.assign = getField(m, "Assign")
	return c
}
