package sfnlocal

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// resultExport keeps what a distributed Map's ResultWriter writes once the
// Map Run ends: each child run's input, when it started and stopped, and
// its output or error. Its fields are written under x.mu by the group
// until it settles, and read by the one goroutine that writes the results
// after that.
type resultExport struct {
	w      *resultWriterDef
	params any // Parameters or Arguments, evaluated when the state started
	run    string
	clock  Clock

	inputs  []any
	names   []string
	started []time.Time
	stopped []time.Time
	outputs []any
	errs    []*stateError
}

// newExport prepares the current Map state's result export, if it has a
// ResultWriter and runs distributed; nil otherwise. in is the effective
// input the JSONPath Parameters refer to.
func (t *thread) newExport(in any, inputs []any) (*resultExport, *stateError) {
	st := t.st
	if st.writer == nil || !st.distributed {
		return nil, nil
	}
	ex := &resultExport{w: st.writer, clock: t.x.e.clock, inputs: inputs}
	if st.writer.args.set {
		var serr *stateError
		if st.lang == langJSONata {
			ex.params, serr = t.jsonataField("Arguments", st.writer.args.value, t.jsonataVars(t.input, nil, nil))
		} else {
			ex.params, serr = t.template("Parameters", st.writer.args.value, in)
		}
		if serr != nil {
			return nil, serr
		}
	}
	n := len(inputs)
	ex.names, ex.started, ex.stopped = make([]string, n), make([]time.Time, n), make([]time.Time, n)
	ex.outputs, ex.errs = make([]any, n), make([]*stateError, n)
	return ex, nil
}

func (ex *resultExport) startedLocked(i int) {
	ex.names[i] = newID()
	ex.started[i] = ex.clock.Now()
}

func (ex *resultExport) doneLocked(i int, out any, serr *stateError) {
	ex.stopped[i] = ex.clock.Now()
	ex.outputs[i], ex.errs[i] = out, serr
}

// succeeded writes the results once every child succeeded or failed
// within the tolerance, then records MapRunSucceeded and
// MapStateSucceeded after end (the last child event) and completes the
// state with {"MapRunArn", "ResultWriterDetails"}, as AWS returns it
// (test_base_scenarios' test_map_state_result_writer). A write that fails
// fails the Map Run with States.ResultWriterFailed.
func (ex *resultExport) succeeded(t *thread, end int64) flow {
	out, serr := ex.write(t)
	x := t.x
	x.mu.Lock()
	t.lastID = end
	if serr != nil {
		t.recordLocked(EventMapRunFailed, &MapRunEventDetails{Error: serr.Name, Cause: serr.Cause})
		t.failEvent = EventMapStateFailed
		x.mu.Unlock()
		return t.fail(serr)
	}
	t.recordLocked(EventMapRunSucceeded, nil)
	t.noteLocked(EventMapStateSucceeded, nil)
	x.mu.Unlock()
	return t.complete(out)
}

// failed writes what the Map Run has done before it failed with serr (its
// failed and aborted runs, and as PENDING the items it never started),
// then fails the state with serr. A write that fails is logged: the Map
// Run's own error is the one the state fails with.
func (ex *resultExport) failed(t *thread, serr *stateError) flow {
	if _, werr := ex.write(t); werr != nil {
		t.x.e.log.Warn("the results of a failed Map Run were not written: " + werr.Cause)
	}
	return t.fail(serr)
}

// write exports the results and returns the Map's result: with an S3
// Resource, the Map Run's ARN and the manifest's location; with only a
// WriterConfig, the transformed results themselves.
func (ex *resultExport) write(t *thread) (any, *stateError) {
	var succeeded, failed, pending []json.RawMessage
	var inline []any
	now := ex.clock.Now()
	for i := range ex.inputs {
		switch {
		case !ex.stopped[i].IsZero() && ex.errs[i] == nil:
			for _, v := range ex.transformed(i) {
				succeeded = append(succeeded, rawJSON(v))
				inline = append(inline, v)
			}
		case !ex.stopped[i].IsZero():
			rec := ex.record(i, "FAILED", ex.stopped[i])
			failed = append(failed, rawJSON(rec))
			inline = append(inline, rec)
		case !ex.started[i].IsZero():
			rec := ex.record(i, "ABORTED", now)
			failed = append(failed, rawJSON(rec))
			inline = append(inline, rec)
		default:
			pending = append(pending, rawJSON(jsonvalue.ObjectOf("Input", jsonvalue.Encode(ex.inputs[i]),
				"InputDetails", jsonvalue.ObjectOf("Included", true), "Status", "PENDING")))
		}
	}
	if ex.w.resource == "" {
		if inline == nil {
			inline = []any{}
		}
		return inline, nil
	}
	var writer task.ResultWriter
	for _, in := range t.x.e.integs {
		if w, ok := in.(task.ResultWriter); ok && w.WritesResults(ex.w.resource) {
			writer = w
			break
		}
	}
	if writer == nil {
		return nil, &stateError{Name: task.ErrResultWriterFailed, Cause: "No integration of the local engine writes results to " + ex.w.resource + " (sfn-local writes S3 at AWS_ENDPOINT_URL_S3)."}
	}
	params := rawJSON(ex.params)
	if ex.params == nil {
		params = json.RawMessage("{}")
	}
	ctx, cancel := context.WithTimeout(t.ctx, ioTimeout)
	defer cancel()
	loc, err := writer.WriteResults(ctx, task.ResultExport{Resource: ex.w.resource, Parameters: params, MapRunARN: ex.run,
		OutputType: ex.w.outputType, Succeeded: succeeded, Failed: failed, Pending: pending})
	if err != nil {
		f := &task.Failure{Name: task.ErrResultWriterFailed, Cause: err.Error()}
		errors.As(err, &f)
		return nil, &stateError{Name: f.Name, Cause: f.Cause}
	}
	return jsonvalue.ObjectOf("MapRunArn", ex.run,
		"ResultWriterDetails", jsonvalue.ObjectOf("Bucket", loc.Bucket, "Key", loc.Key)), nil
}

// transformed is a succeeded run's result as WriterConfig's
// Transformation shapes it: NONE the run's record, COMPACT its output,
// FLATTEN its output's members when it is an array.
func (ex *resultExport) transformed(i int) []any {
	switch ex.w.transformation {
	case "COMPACT":
		return []any{ex.outputs[i]}
	case "FLATTEN":
		if list, ok := ex.outputs[i].([]any); ok {
			return list
		}
		return []any{ex.outputs[i]}
	}
	return []any{ex.record(i, "SUCCEEDED", ex.stopped[i])}
}

// record describes a child run as DescribeExecution would describe it if
// it were an execution of its own, members in AWS's order: an output for
// a SUCCEEDED run, an error and cause for a FAILED one.
func (ex *resultExport) record(i int, status string, stopped time.Time) *jsonvalue.Object {
	prefix := ex.run[:strings.LastIndexByte(ex.run, ':')] // arn:…:mapRun:<machine>/<label>
	rec := jsonvalue.NewObject(16)
	if status != "SUCCEEDED" {
		if e := ex.errs[i]; e != nil {
			rec.Set("Cause", e.Cause)
			rec.Set("Error", e.Name)
		}
	}
	rec.Set("ExecutionArn", strings.Replace(prefix, ":mapRun:", ":execution:", 1)+":"+ex.names[i])
	rec.Set("Input", jsonvalue.Encode(ex.inputs[i]))
	rec.Set("InputDetails", jsonvalue.ObjectOf("Included", true))
	rec.Set("Name", ex.names[i])
	if status == "SUCCEEDED" {
		rec.Set("Output", jsonvalue.Encode(ex.outputs[i]))
		rec.Set("OutputDetails", jsonvalue.ObjectOf("Included", true))
	}
	rec.Set("RedriveCount", json.Number("0"))
	rec.Set("RedriveStatus", "NOT_REDRIVABLE")
	rec.Set("RedriveStatusReason", "Execution is "+status+" and cannot be redriven")
	rec.Set("StartDate", exportDate(ex.started[i]))
	rec.Set("StateMachineArn", strings.Replace(prefix, ":mapRun:", ":stateMachine:", 1))
	rec.Set("Status", status)
	rec.Set("StopDate", exportDate(stopped))
	return rec
}

// exportDate is a result file's timestamp: UTC, to the millisecond.
func exportDate(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
