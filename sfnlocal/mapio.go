package sfnlocal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// ioTimeout bounds one ItemReader read or ResultWriter write.
const ioTimeout = 2 * time.Minute

// itemReaderDef is a distributed Map's ItemReader.
type itemReaderDef struct {
	resource     string
	args         field // Parameters (JSONPath) or Arguments (JSONata)
	cfg          task.ReaderConfig
	maxItems     field
	maxItemsPath string
}

// resultWriterDef is a distributed Map's ResultWriter.
type resultWriterDef struct {
	resource       string // "": WriterConfig only, the results stay in the state
	args           field
	transformation string // NONE, COMPACT or FLATTEN
	outputType     string // JSON or JSONL
}

// parseMapIO reads a Map's ItemReader and ResultWriter, which validate
// has checked.
func parseMapIO(st *state, m *jsonvalue.Object) {
	argsField := "Parameters"
	if st.lang == langJSONata {
		argsField = "Arguments"
	}
	if r := obj(m, "ItemReader"); r != nil {
		d := &itemReaderDef{resource: str(r, "Resource"), args: getField(r, argsField)}
		if c := obj(r, "ReaderConfig"); c != nil {
			d.cfg = task.ReaderConfig{
				InputType:         str(c, "InputType"),
				CSVHeaderLocation: str(c, "CSVHeaderLocation"),
				CSVHeaders:        getStrings(member(c, "CSVHeaders")),
				CSVDelimiter:      str(c, "CSVDelimiter"),
			}
			d.maxItems = getField(c, "MaxItems")
			d.maxItemsPath = str(c, "MaxItemsPath")
		}
		st.reader = d
	}
	if w := obj(m, "ResultWriter"); w != nil {
		d := &resultWriterDef{resource: str(w, "Resource"), args: getField(w, argsField), transformation: "NONE", outputType: "JSON"}
		if c := obj(w, "WriterConfig"); c != nil {
			d.transformation, d.outputType = str(c, "Transformation"), str(c, "OutputType")
		} else if d.resource == "" {
			d.transformation = "COMPACT"
		}
		st.writer = d
	}
}

// mapRunARN names a new Map Run of the current state: the state machine's
// ARN with mapRun, the state's Label (else its name) and a fresh id.
func (t *thread) mapRunARN() string {
	label := t.st.label
	if label == "" {
		label = t.st.name
	}
	return fmt.Sprintf("%s/%s:%s", mapRunPrefix(t.x.m.arn), label, newID())
}

// readItems reads a distributed Map's items through its ItemReader, after
// recording MapStateStarted (whose length AWS records as 0 when a reader
// supplies the items) and MapRunStarted. A reader failure records
// MapRunFailed and fails the state with MapStateFailed, as AWS recorded
// it (States.ItemReaderFailed, test_base_scenarios). It returns the
// items, the effective input ItemSelector's $ refers to, and the Map Run's
// ARN.
func (t *thread) readItems() ([]any, any, string, *stateError) {
	st, x := t.st, t.x
	rd := st.reader
	in := t.input
	var params any
	var serr *stateError
	if st.lang == langJSONata {
		if rd.args.set {
			params, serr = t.jsonataField("Arguments", rd.args.value, t.jsonataVars(t.input, nil, nil))
		}
	} else {
		if in, serr = t.pathValue(st.inputPath, t.input); serr == nil && rd.args.set {
			params, serr = t.template("Parameters", rd.args.value, in)
		}
	}
	if serr != nil {
		return nil, nil, "", serr
	}
	maxItems, serr := t.readerMaxItems(in)
	if serr != nil {
		return nil, nil, "", serr
	}
	run := t.mapRunARN()
	x.mu.Lock()
	t.recordLocked(EventMapStateStarted, &MapStateStartedEventDetails{Length: 0})
	t.recordLocked(EventMapRunStarted, &MapRunEventDetails{MapRunArn: run})
	x.mu.Unlock()

	cfg := rd.cfg
	cfg.MaxItems = maxItems
	req := task.ItemRead{Resource: rd.resource, Parameters: rawJSON(params), Config: cfg,
		StateMachineARN: x.m.arn, ExecutionARN: x.arn, StateName: st.name}
	if params == nil {
		req.Parameters = json.RawMessage("{}")
	}
	raw, err := t.callReader(req)
	var items []any
	if err == nil {
		var v any
		if v, err = decodeJSON(raw); err == nil {
			var ok bool
			if items, ok = v.([]any); !ok {
				err = &task.Failure{Name: task.ErrItemReaderFailed, Cause: causeNotIterable}
			}
		}
	}
	if err != nil {
		if t.ctx.Err() != nil {
			return nil, nil, "", &stateError{Name: errRuntime, Cause: "The Map Run was stopped while it read its items."}
		}
		f := &task.Failure{Name: task.ErrItemReaderFailed, Cause: err.Error()}
		errors.As(err, &f)
		t.record(EventMapRunFailed, &MapRunEventDetails{Error: f.Name, Cause: f.Cause})
		t.failEvent = EventMapStateFailed
		return nil, nil, "", &stateError{Name: f.Name, Cause: f.Cause}
	}
	return items, in, run, nil
}

// causeNotIterable is AWS's cause for items that are not an array.
const causeNotIterable = "Attempting to map over non-iterable node."

// callReader asks the integration that reads the resource.
func (t *thread) callReader(req task.ItemRead) (json.RawMessage, error) {
	var reader task.ItemReader
	for _, in := range t.x.e.integs {
		if r, ok := in.(task.ItemReader); ok && r.ReadsItems(req.Resource) {
			reader = r
			break
		}
	}
	if reader == nil {
		return nil, &task.Failure{Name: task.ErrItemReaderFailed, Cause: "No integration of the local engine reads items from " + req.Resource + " (sfn-local reads S3 at AWS_ENDPOINT_URL_S3)."}
	}
	ctx, cancel := context.WithTimeout(t.ctx, ioTimeout)
	defer cancel()
	return reader.ReadItems(ctx, req)
}

// readerMaxItems evaluates ReaderConfig's MaxItems or MaxItemsPath: 0
// means no limit.
func (t *thread) readerMaxItems(in any) (int, *stateError) {
	rd := t.st.reader
	var v any
	switch {
	case rd.maxItemsPath != "":
		var err error
		if v, err = t.resolver(in)(rd.maxItemsPath); err != nil {
			return 0, t.noMatch(rd.maxItemsPath, err)
		}
	case rd.maxItems.set && t.st.lang == langJSONata:
		var serr *stateError
		if v, serr = t.jsonataField("MaxItems", rd.maxItems.value, t.jsonataVars(t.input, nil, nil)); serr != nil {
			return 0, serr
		}
	case rd.maxItems.set:
		v = rd.maxItems.value
	default:
		return 0, nil
	}
	n, ok := integer(v)
	if !ok || n < 0 {
		return 0, t.runtimef("The MaxItems value %s is not a non-negative integer", jsonvalue.Encode(v))
	}
	return int(min(n, 100_000_000)), nil
}
